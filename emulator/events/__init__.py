"""Events the service sends out: webhook deliveries (signed, retried, recorded).

``urls.py`` says which URLs an endpoint may have; ``signing.py`` signs a delivery as the
real service does; ``activity_updates.py`` turns committed activity status changes into
deliveries for the subscribed endpoints; ``deliveries.py`` sends them (a background thread,
or synchronously) through ``transport.py`` and records every attempt (``records.py``) for
tests (``emu.webhooks``).
"""
