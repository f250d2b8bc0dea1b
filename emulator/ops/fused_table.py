"""Which activities the facade may run on the fused path (``services/fused.py``).

An activity type here has a read-only handler (it signs with a key of the organization
and writes nothing: no record, no id drawn), so the fused body may run it before the
activity's ids are drawn, and drop its answer for the plain path when it refuses. The
fused body runs it in a transaction that refuses any change (the plain path then runs it);
a type is listed only where ``tests/test_fused.py`` drives it through both paths.
"""

from __future__ import annotations

FUSED_TYPES = frozenset(
    {
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    }
)
