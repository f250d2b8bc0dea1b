"""The run: the organization's inventory, every check in order, then (always, in a
``finally``) the deletion of what the run made and a second inventory that must equal
the first."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from typing import Any

from . import checks_access, checks_errors, checks_signing, checks_wallets
from .report import Mismatch, Report
from .session import Inventory, Session

Check = Callable[[Session], None]
#: Checks in order (later ones use what earlier ones made: the imported wallet, the user).
CHECKS: list[tuple[str, Check]] = [
    *checks_wallets.CHECKS,
    *checks_signing.CHECKS,
    *checks_access.CHECKS,
    *checks_errors.CHECKS,
]


def run(
    *,
    base_url: str,
    organization_id: str,
    api_public_key: str,
    api_private_key: str,
    prefix: str,
    signer_public_key: str,
    max_examples: int,
    report_path: str | None = None,
    checks: list[tuple[str, Check]] | None = None,
) -> int:
    with ExitStack() as files:
        streams: list[Any] = [sys.stdout]
        if report_path:
            streams.append(files.enter_context(open(report_path, "w", encoding="utf-8")))
        report = Report(*streams)
        session = Session(
            base_url,
            organization_id,
            api_public_key,
            api_private_key,
            prefix=prefix,
            signer_public_key=signer_public_key,
            max_examples=max_examples,
        )
        run_checks(session, report, CHECKS if checks is None else checks)
        report.summary()
        return 0 if report.ok else 1


def run_checks(session: Session, report: Report, checks: list[tuple[str, Check]]) -> None:
    before: Inventory | None = None
    try:
        before = session.inventory()
        for name, check in checks:
            report.check(name, partial(check, session))
    except KeyboardInterrupt:
        report.fails("run", "every check to run", "interrupted; cleaning up")
    except Exception as error:  # the inventory itself could not be read
        report.fails("inventory.before", "the organization's resources listed", error)
    finally:
        clean_up(session, report, before)


def clean_up(session: Session, report: Report, before: Inventory | None) -> None:
    """Delete what the ledger holds; then the organization must hold what it held."""
    for kind, problem in session.cleanup(before):
        if problem is None:
            report.passes(f"cleanup.delete_{kind}")
        else:
            report.fails(f"cleanup.delete_{kind}", "the run's resources deleted", problem)
    if before is None:
        return

    def unchanged() -> None:
        after = session.inventory()
        differences = []
        for kind in before:
            added = set(after[kind]) - set(before[kind])
            removed = set(before[kind]) - set(after[kind])
            if added:
                differences.append(f"{kind} left behind: {sorted(added)}")
            if removed:
                differences.append(f"{kind} gone: {sorted(removed)}")
        if differences:
            raise Mismatch("the organization as it was before the run", "; ".join(differences))

    report.check("cleanup.organization_unchanged", unchanged)
