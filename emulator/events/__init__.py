"""Events the service sends out: what each committed change means for the subscribed webhook
endpoints.

``activity_updates.py`` turns committed activity status changes into deliveries,
``send_status.py`` the status changes of broadcast transactions, ``balance_updates.py`` the
balance changes they make (the chain's receipt is passed down by the services that
broadcast). The deliveries themselves (queue, attempts, signatures, transport, allowed URLs)
are ``emulator/webhooks/``, held by the world.

Layer: beside ``state/``, ``policy/`` and ``chains/`` (none imports another), below the
services. May import: the world's state, webhooks, the recorders, crypto and the ground.
"""
