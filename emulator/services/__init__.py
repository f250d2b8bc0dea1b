"""Domain logic: authentication, authorization, the activity lifecycle, paging.

Layer: below the operations. May import: state, policy, chains, events and everything
below them; never ops (the operation table reaches consensus through
``operation_table.py``), dispatch, the facade nor a door.
"""
