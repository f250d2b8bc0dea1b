"""Webhook deliveries: the queue and attempts of each event (``Webhooks``, what
``emu.webhooks`` shows), their signatures, the transport to a receiver or a URL, and which
URLs are allowed.

May import: crypto, ground. The world that holds them is named through the
``DeliveryWorld`` Protocol of ``deliveries.py``; the events that fill them live in
``events/``.
"""
