"""The organization's own settings: update_root_quorum, set_organization_feature,
remove_organization_feature, update_organization_name.

Only the root quorum may run these (``root_quorum_only``): no policy can grant
them (features/policies/language.mdx, "Root quorum activities"). What they set
shows in ``get_organization_configs`` (features, quorum) and ``whoami`` (name).
"""

from __future__ import annotations

from typing import Any

from ..ground.enums import FEATURE_NAMES
from ..ground.models import Organization, Quorum
from ..ground.schema import Array, Enum, Integer, String, label, obj, uuid
from ..services.context import Context
from ..services.organizations import check_quorum
from .registry import Version, activity
from .users import find_user

Params = dict[str, Any]


# ``value`` is required (as the SDK's model has it) but may be empty: the SDK describes it
# as "Optional value for the feature", most features take none, and proto3 cannot tell ""
# from absent.
FEATURE_PARAMS = obj(name=Enum(FEATURE_NAMES), value=String(allow_empty=True))


def features_of(org: Organization) -> list[Params]:
    """``[{name, value}]`` in the order the features were first set."""
    return [{"name": name, "value": value} for name, value in org.features.items()]


@activity(
    "update_root_quorum",
    summary="Update root quorum",
    default="ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
    root_quorum_only=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
            "updateRootQuorumIntent",
            "updateRootQuorumResult",
            obj(threshold=Integer(), userIds=Array(uuid())),
        )
    ],
)
def update_root_quorum(ctx: Context, params: Params) -> Params:
    """The new quorum: users of the organization, 1 <= threshold <= their number."""
    threshold = params["threshold"]
    user_ids = list(dict.fromkeys(params["userIds"]))
    if threshold > 0:  # a non-positive threshold is refused first, whatever the users
        for user_id in user_ids:
            find_user(ctx.org, user_id)
    check_quorum(threshold, len(user_ids))
    ctx.tx.set(ctx.org, "root_quorum", Quorum(threshold=threshold, user_ids=user_ids))
    return {}


@activity(
    "set_organization_feature",
    summary="Set organization feature",
    default="ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
    root_quorum_only=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
            "setOrganizationFeatureIntent",
            "setOrganizationFeatureResult",
            FEATURE_PARAMS,
        )
    ],
)
def set_organization_feature(ctx: Context, params: Params) -> Params:
    """Enable a feature, or give an enabled one its new value; answer every feature."""
    features = {**ctx.org.features, params["name"]: params["value"]}
    ctx.tx.set(ctx.org, "features", features)
    return {"features": features_of(ctx.org)}


@activity(
    "remove_organization_feature",
    summary="Remove organization feature",
    default="ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",
    root_quorum_only=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",
            "removeOrganizationFeatureIntent",
            "removeOrganizationFeatureResult",
            obj(name=Enum(FEATURE_NAMES)),
        )
    ],
)
def remove_organization_feature(ctx: Context, params: Params) -> Params:
    """Disable a feature (one not enabled stays so); answer the remaining features."""
    features = {k: v for k, v in ctx.org.features.items() if k != params["name"]}
    ctx.tx.set(ctx.org, "features", features)
    return {"features": features_of(ctx.org)}


@activity(
    "update_organization_name",
    summary="Update organization name",
    default="ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
    root_quorum_only=True,
    versions=[
        Version(
            "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
            "updateOrganizationNameIntent",
            "updateOrganizationNameResult",
            obj(organizationName=label()),
        )
    ],
)
def update_organization_name(ctx: Context, params: Params) -> Params:
    ctx.tx.set(ctx.org, "name", params["organizationName"])
    return {"organizationId": ctx.org.organization_id, "organizationName": ctx.org.name}
