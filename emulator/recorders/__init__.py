"""The engine's recorders: what the world records about itself for tests to observe
(the call log, injected faults, the outbox of e-mails and SMS, e-mail events).

May import: crypto, ground. The operations' table reaches them as a value (the registry
is passed to ``CallLog`` / ``Faults`` by whoever asks), never by import.
"""
