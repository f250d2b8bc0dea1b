"""Sub-organizations: who may create one, deleting one, and finding them by filter.

A sub-organization is an organization whose ``parent_id`` names the parent it was
created in. A parent may have any number of them; a sub-organization may have none
(its allowance is 0, resource-limits.mdx). One is deleted from inside, by its own
users, once its wallets and private keys are exported (or ``deleteWithoutExport``).

``list_suborgs`` filters by the sub-organization's name or by what one of its users
has (user name, e-mail, phone number, passkey credential id, API public key, OIDC
identity) or holds (a wallet account address); ``list_verified_suborgs`` keeps the
sub-organizations with a user whose e-mail or phone number was verified.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ground import messages
from ..ground.errors import InvalidArgument, ResourceExhausted, ValidationFailed
from ..ground.models import Organization, User
from ..ground.schema import Violations
from .context import Context
from .credentials import token_claims as oidc_token_claims

FILTER_TYPES = (
    "NAME",
    "USERNAME",
    "EMAIL",
    "PHONE_NUMBER",
    "CREDENTIAL_ID",
    "PUBLIC_KEY",
    "WALLET_ACCOUNT_ADDRESS",
    "OIDC_TOKEN",
)
VERIFIED_FILTER_TYPES = ("EMAIL", "PHONE_NUMBER", "OIDC_TOKEN", "PUBLIC_KEY")


# --- creating --------------------------------------------------------------------------


def check_may_create(ctx: Context) -> None:
    """A sub-organization cannot create sub-organizations; a parent may, up to its limit."""
    if ctx.org.parent_id is not None:
        raise InvalidArgument(
            messages.SUB_ORGANIZATION_CALLER, turnkey_error_code="INVALID_ACTIVITY_CALLER"
        )
    limit = ctx.settings.max_sub_organizations_per_organization
    if limit is not None and len(ctx.org.sub_organization_ids) >= limit:
        raise ResourceExhausted(
            messages.MAX_SUB_ORGANIZATIONS, turnkey_error_code="RATE_LIMIT_EXCEEDED"
        )


# --- deleting --------------------------------------------------------------------------


def delete(ctx: Context, *, without_export: bool) -> str:
    """Remove the target organization (a sub-organization) and all it holds; its id."""
    org = ctx.org
    if org.parent_id is None:
        raise InvalidArgument(
            messages.not_a_sub_organization(org.organization_id),
            turnkey_error_code="REQUEST_INVALID",
        )
    if not without_export:
        for wallet in org.wallets.values():
            if not wallet.exported:
                raise InvalidArgument(
                    messages.not_exported(messages.WALLET_NOT_EXPORTED, wallet.wallet_id)
                )
        for key in org.private_keys.values():
            if not key.exported:
                raise InvalidArgument(
                    messages.not_exported(messages.PRIVATE_KEY_NOT_EXPORTED, key.private_key_id)
                )
    ctx.store.remove_organization(ctx.tx, org)
    return org.organization_id


# --- finding ---------------------------------------------------------------------------


def check_filter(filter_type: str | None, filter_value: str | None, allowed: tuple) -> None:
    """400 naming the field: an unknown ``filterType``, or one half of the pair alone."""
    errors = Violations()
    if filter_type and filter_type not in allowed:
        errors.add("filterType", f"must be one of {', '.join(allowed)}")
    elif filter_type and not filter_value:
        errors.add("filterValue", "is required when filterType is given")
    elif filter_value and not filter_type:
        errors.add("filterType", "is required when filterValue is given")
    if errors:
        raise ValidationFailed(errors)


def sub_organizations(ctx: Context) -> list[Organization]:
    """The target organization's sub-organizations, oldest first."""
    orgs = ctx.store.organizations
    return [orgs[i] for i in ctx.org.sub_organization_ids if i in orgs]


def matching(
    orgs: list[Organization], filter_type: str | None, value: str | None
) -> list[Organization]:
    """The organizations that ``filterType``/``filterValue`` select (all without a filter)."""
    if not filter_type or not value:
        return orgs
    if filter_type == "NAME":
        return [o for o in orgs if o.name == value]
    if filter_type == "WALLET_ACCOUNT_ADDRESS":
        return [o for o in orgs if _holds_address(o, value)]
    holds = _user_predicate(filter_type, value, verified_only=False)
    return [o for o in orgs if any(holds(u) for u in o.users.values())]


def verified(
    orgs: list[Organization], filter_type: str | None, value: str | None
) -> list[Organization]:
    """The organizations with a user whose contact is verified and who matches the filter.

    EMAIL and PHONE_NUMBER match the verified contact itself; OIDC_TOKEN and PUBLIC_KEY a
    credential of a user whose e-mail or phone number is verified.
    """
    if filter_type and value:
        holds = _user_predicate(filter_type, value, verified_only=True)
    else:
        holds = _has_verified_contact
    return [o for o in orgs if any(holds(u) for u in o.users.values())]


def _has_verified_contact(user: User) -> bool:
    return (user.email_verified and user.email is not None) or (
        user.phone_number_verified and user.phone_number is not None
    )


def _user_predicate(filter_type: str, value: str, *, verified_only: bool) -> Callable[[User], bool]:
    if filter_type == "USERNAME":
        return lambda u: u.name == value
    if filter_type == "EMAIL":
        email = value.lower()
        return lambda u: (
            u.email is not None
            and u.email.lower() == email
            and (u.email_verified or not verified_only)
        )
    if filter_type == "PHONE_NUMBER":
        return lambda u: u.phone_number == value and (u.phone_number_verified or not verified_only)
    if filter_type == "CREDENTIAL_ID":
        return lambda u: any(a.credential_id == value for a in u.authenticators.values())
    if filter_type == "PUBLIC_KEY":
        key = value.lower()

        def holds_key(user: User) -> bool:
            has = any(k.public_key == key for k in user.api_keys.values())
            return has and (_has_verified_contact(user) or not verified_only)

        return holds_key
    if filter_type == "OIDC_TOKEN":
        claims = oidc_token_claims(value)

        def holds_identity(user: User) -> bool:
            has = any(
                (p.issuer, p.subject, p.audience) == (claims["iss"], claims["sub"], claims["aud"])
                for p in user.oauth_providers.values()
            )
            return has and (_has_verified_contact(user) or not verified_only)

        return holds_identity
    raise ValueError(f"no filter {filter_type}")  # check_filter let an unknown type through


def _holds_address(org: Organization, address: str) -> bool:
    return any(a.address == address for w in org.wallets.values() for a in w.accounts.values())
