"""What Turnkey Verifiable Cloud runs that the emulator cannot: a scriptable stand-in.

No container is pulled and no enclave boots. The registry, the QOS releases, the replicas
and the enclaves' logs are this object, held by the world (``world.tvc``) and reached by
tests as ``emu.tvc`` (``facade/tvc.py``). It is a test control, not state: checkpoints,
snapshots and state files leave it alone. Its defaults (docs/tvc.md):

* **images**: every well-formed reference resolves; one pinned by ``@sha256:<digest>``
  resolves to that digest, any other to a digest of its own text (stable, as a registry
  answers the same digest for the same tag until it moves). ``unknown(ref)`` makes a
  reference unknown, ``set_digest(ref, digest)`` makes it resolve to another digest.
* **QOS versions**: ``qos_versions`` (``v2026.2.6``, the one the quickstart names); the
  last is the latest.
* **timing** on the emulator's clock: enclaves boot ``boot_seconds`` after the manifest
  set's threshold of approvals (then they await their shares), replicas are ready
  ``ready_seconds`` after the Quorum Key is rebuilt.
* **replicas**: all desired replicas ready once up; ``set_ready(deployment_id, n)``
  scripts another count (a crash loop, a slow rollout).
* **debug logs**: each replica of a debug-mode deployment logs its boot; ``log(...)``
  adds lines.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

DEFAULT_QOS_VERSIONS = ("v2026.2.6",)
DEFAULT_BOOT_SECONDS = 20
DEFAULT_READY_SECONDS = 30
_PINNED = re.compile(r"@sha256:([0-9a-f]{64})$")
# [registry[:port]/]path[:tag][@sha256:digest], lower-case path components (the OCI
# distribution spec's reference grammar, simplified)
_REFERENCE = re.compile(
    r"^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*"
    r"(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
    r"(?:@sha256:[0-9a-f]{64})?$"
)
UNKNOWN = ""


@dataclass(frozen=True, slots=True)
class LogLine:
    replica: int  # 1-based
    at_ns: int
    content: str


@dataclass
class TvcRuntime:
    qos_versions: list[str] = field(default_factory=lambda: list(DEFAULT_QOS_VERSIONS))
    boot_seconds: int = DEFAULT_BOOT_SECONDS
    ready_seconds: int = DEFAULT_READY_SECONDS
    images: dict[str, str] = field(default_factory=dict)  # reference -> digest, "" unknown
    ready: dict[str, int] = field(default_factory=dict)  # deployment id -> ready replicas
    logs: dict[str, list[LogLine]] = field(default_factory=dict)

    # --- the registry ---------------------------------------------------------------

    @staticmethod
    def well_formed(reference: str) -> bool:
        return len(reference) <= 512 and _REFERENCE.match(reference) is not None

    def resolve(self, reference: str) -> str | None:
        """The digest (``sha256:<hex>``) ``reference`` resolves to; None: unknown."""
        scripted = self.images.get(reference)
        if scripted is not None:
            return scripted or None
        pinned = _PINNED.search(reference)
        if pinned:
            return "sha256:" + pinned.group(1)
        return (
            "sha256:" + hashlib.sha256(f"turnkey-emulator image {reference}".encode()).hexdigest()
        )

    def unknown(self, reference: str) -> None:
        self.images[reference] = UNKNOWN

    def set_digest(self, reference: str, digest: str) -> None:
        hex_digest = digest.removeprefix("sha256:")
        if not re.fullmatch(r"[0-9a-f]{64}", hex_digest):
            raise ValueError("a digest is sha256:<64 lower-case hex digits>")
        self.images[reference] = "sha256:" + hex_digest

    # --- QOS releases ---------------------------------------------------------------

    @property
    def latest_qos_version(self) -> str:
        return self.qos_versions[-1] if self.qos_versions else ""

    @staticmethod
    def qos_commit(version: str) -> str:
        """The (simulated) QOS commit of a release: 40 hex digits derived from its name."""
        return hashlib.sha1(f"qos {version}".encode()).hexdigest()

    @staticmethod
    def pcrs(version: str) -> tuple[bytes, bytes, bytes, bytes]:
        """PCR0 to PCR3 of a release's enclave image (simulated, 48 bytes each)."""
        return tuple(  # type: ignore[return-value]
            hashlib.sha384(f"qos {version} pcr{i}".encode()).digest() for i in range(4)
        )

    # --- replicas and logs ----------------------------------------------------------

    def set_ready(self, deployment_id: str, count: int | None) -> None:
        if count is None:
            self.ready.pop(deployment_id, None)
        else:
            self.ready[deployment_id] = max(0, int(count))

    def log(self, deployment_id: str, replica: int, at_ns: int, content: str) -> None:
        self.logs.setdefault(deployment_id, []).append(LogLine(replica, at_ns, content))

    def reset(self) -> None:
        fresh = TvcRuntime()
        for name in ("qos_versions", "boot_seconds", "ready_seconds", "images", "ready", "logs"):
            setattr(self, name, getattr(fresh, name))


def configure(runtime: TvcRuntime, params: dict, now_ns: int) -> dict:
    """The control plane's ``tvc`` endpoint: apply ``params`` (each optional), answer the
    configuration. ``reset``; ``qosVersions`` (a non-empty list, the last the latest);
    ``bootSeconds``, ``readySeconds``; ``unknownImages`` (references); ``imageDigests``
    (reference -> digest); ``ready`` (deployment id -> count, or null for the default);
    ``logs`` (a list of ``{deploymentId, replica, content}``, logged now). A bad value is a
    ValueError (the endpoint's 400) and changes nothing."""
    versions = params.get("qosVersions")
    if versions is not None and (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, str) and v for v in versions)
    ):
        raise ValueError("qosVersions is a non-empty list of version names")
    seconds = {k: params[k] for k in ("bootSeconds", "readySeconds") if k in params}
    for key, value in seconds.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{key} is a non-negative integer")
    digests = params.get("imageDigests") or {}
    unknown = params.get("unknownImages") or []
    ready = params.get("ready") or {}
    logs = params.get("logs") or []
    if (
        not isinstance(digests, dict)
        or not isinstance(unknown, list)
        or not isinstance(ready, dict)
    ):
        raise ValueError("imageDigests and ready are objects, unknownImages a list")
    for count in ready.values():
        if count is not None and (
            not isinstance(count, int) or isinstance(count, bool) or count < 0
        ):
            raise ValueError("ready maps deployment ids to non-negative counts or null")
    if not isinstance(logs, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("deploymentId"), str)
        and isinstance(e.get("content"), str)
        and isinstance(e.get("replica", 1), int)
        for e in logs
    ):
        raise ValueError("logs is a list of {deploymentId, replica, content}")
    checked = TvcRuntime()
    for reference, digest in digests.items():
        checked.set_digest(str(reference), str(digest))  # ValueError for a bad digest
    if params.get("reset"):
        runtime.reset()
    if versions is not None:
        runtime.qos_versions = list(versions)
    for key, value in seconds.items():
        setattr(runtime, "boot_seconds" if key == "bootSeconds" else "ready_seconds", value)
    runtime.images.update(checked.images)
    for reference in unknown:
        runtime.unknown(str(reference))
    for deployment_id, count in ready.items():
        runtime.set_ready(str(deployment_id), count)
    for entry in logs:
        runtime.log(entry["deploymentId"], entry.get("replica", 1), now_ns, entry["content"])
    return {
        "qosVersions": list(runtime.qos_versions),
        "latestQosVersion": runtime.latest_qos_version,
        "bootSeconds": runtime.boot_seconds,
        "readySeconds": runtime.ready_seconds,
        "images": {ref: digest or None for ref, digest in runtime.images.items()},
        "ready": dict(runtime.ready),
    }
