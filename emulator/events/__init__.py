"""Events the service sends out: webhook deliveries (signed, retried, recorded).

``signing.py`` signs a delivery as the real service does; ``activity_updates.py`` turns
committed activity status changes into deliveries for the subscribed endpoints;
``deliveries.py`` sends them (a background thread, or synchronously) and records every
attempt for tests (``emu.webhooks``).
"""
