"""The records of an organization's controls on who may do what, beyond its policies: IP
allowlists, session profiles, MFA policies (and each activity's MFA progress) and velocity
controls with their running totals (``services/ip_allowlists.py``, ``session_profiles.py``,
``mfa.py``, ``velocity.py``). Plain dataclasses, as ``models.py``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class IpRule:
    """One CIDR block of an IP allowlist, normalized (``192.168.1.0/24``)."""

    cidr: str
    label: str = ""
    created_at_ms: int = 0


@dataclass(frozen=True, slots=True)
class IpAllowlist:
    """An organization's IP allowlist (``public_key`` ``""``) or one API key's.

    Replaced whole by ``set_ip_allowlist``; ``services/ip_allowlists.py`` enforces it."""

    public_key: str
    rules: tuple[IpRule, ...] = ()
    enabled: bool | None = None  # the organization's only; a key's applies when present
    on_evaluation_error: str = "DENY"


@dataclass(frozen=True, slots=True)
class SessionProfile:
    """A session profile (features/authentication/sessions/session-profiles): immutable once
    made; sessions issued with it are limited to its ``scope`` and ``expiration_seconds``."""

    session_profile_id: str
    name: str
    scope: str
    created_at: int
    expiration_seconds: str | None = None
    notes: str = ""


@dataclass(frozen=True, slots=True)
class AuthMethod:
    """One authentication method (``v1AuthenticationMethod``): its ``AUTHENTICATION_TYPE_*``
    and, where pinned, the id of the one credential (a passkey, an API key, a session
    profile, an OAuth provider) that may satisfy it."""

    type: str
    id: str | None = None

    def satisfies(self, wanted: AuthMethod) -> bool:
        """Whether presenting this method meets ``wanted`` (its type, and its id if pinned)."""
        return self.type == wanted.type and (wanted.id is None or wanted.id == self.id)


def steps_satisfied(
    required: tuple[tuple[AuthMethod, ...], ...], presented: tuple[AuthMethod, ...] | list
) -> bool:
    """Every step met by some presented method (a method may meet several steps)."""
    return all(any(m.satisfies(w) for m in presented for w in step) for step in required)


@dataclass(slots=True)
class MfaPolicy:
    """A user's MFA policy (features/authentication/mfa): when ``condition`` holds for an
    activity the user stamps, every step of ``required`` (each a choice of methods) must
    have been presented before the activity goes on. Lower ``order`` is evaluated first."""

    mfa_policy_id: str
    user_id: str
    name: str
    condition: str
    required: tuple[tuple[AuthMethod, ...], ...]
    order: int
    created_at: int
    updated_at: int
    notes: str = ""


@dataclass(slots=True)
class MfaProgress:
    """One voter's MFA on one activity: the policy that applied when they stamped it (its
    steps as they were then) and every method they have presented on it since."""

    user_id: str
    mfa_policy_id: str
    required: tuple[tuple[AuthMethod, ...], ...]
    presented: list[AuthMethod] = field(default_factory=list)

    @property
    def satisfied(self) -> bool:
        return steps_satisfied(self.required, self.presented)


@dataclass(frozen=True, slots=True)
class VelocityControl:
    """A velocity control (``services/velocity.py``): what it measures and the limit that
    ``controls.<identifier>`` tests in policies. ``data_source`` and ``aggregation`` are
    kept as the request sent them, checked and with its numbers as strings."""

    velocity_control_id: str
    identifier: str
    name: str
    data_source: dict[str, Any]
    aggregation: dict[str, Any]
    created_at: int


@dataclass(frozen=True, slots=True)
class VelocityPoint:
    """One measured data point of a rolling window: when, and how much (exact: an integer or
    fraction text). ``point_id`` is ``<bucket id>/<sequence number>``."""

    point_id: str
    at: int
    amount: str


@dataclass(frozen=True, slots=True)
class VelocityBucket:
    """One velocity control's running total in one group (the organization, a user, a
    wallet), and for a rolling window the sequence numbers of its points still inside it,
    ``first`` to ``next - 1``, oldest first. ``bucket_id`` is ``<velocity control id>/<group>``."""

    bucket_id: str
    velocity_control_id: str
    total: str
    first: int = 0
    next: int = 0
