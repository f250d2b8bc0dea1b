"""The service's own e-mails: how one is composed into the outbox.

Every flow that mails something (``email_auth``'s credential bundle, the OTP
codes, the recovery bundle) takes the same options from its intent:

* ``emailCustomization`` (``appName``, ``logoUrl``, ``magicLinkTemplate``,
  ``templateId``, ``templateVariables``): what the e-mail shows. A magic link is
  the template with the secret the e-mail carries (a credential bundle, an OTP
  code) in place of its ``%s``; a template without ``%s`` is the real
  "invalid magic link template", and ``templateVariables`` that are not a JSON
  object the real "failed to unmarshal template variables".
* ``sendFromEmailAddress``, ``sendFromEmailSenderName``, ``replyToEmailAddress``:
  the sender. The docs (features/authentication/email.mdx, "Custom email sender
  domain"): without a valid ``sendFromEmailAddress`` the other two are ignored;
  with one, the sender name defaults to "Notifications" and there is a reply-to
  only when ``replyToEmailAddress`` is given (and valid). Which domains are
  whitelisted is not knowable here: any well-formed address is taken as valid.

The message lands in ``world.outbox`` once the activity commits: a failed
activity sends nothing. ``fields`` of the message hold what the e-mail
carries, then the customization that was given, then ``magicLink``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..ground import jsontext, messages
from ..ground.errors import InvalidArgument, NotFound
from ..ground.models import Organization, User
from ..ground.schema import String, obj, opt
from ..recorders.outbox import DEFAULT_SENDER_ADDRESS, DEFAULT_SENDER_NAME, EMAIL
from .context import Context

Params = dict[str, Any]

MAGIC_LINK_PLACEHOLDER = "%s"
# RFC 6761 §6.4: no name under ``.invalid`` ever resolves, so an address there is the one
# domain an emulator (which resolves nothing) knows to be unreachable.
UNREACHABLE_TLD = ".invalid"
_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# v1EmailCustomizationParams (every field optional) and v1EmailAuthCustomizationParams
# (the V3 flows': ``appName`` required).
_CUSTOMIZATION_FIELDS = ("logoUrl", "magicLinkTemplate", "templateVariables", "templateId")
EMAIL_CUSTOMIZATION = obj(
    appName=opt(String()), **{name: opt(String()) for name in _CUSTOMIZATION_FIELDS}
)
EMAIL_AUTH_CUSTOMIZATION = obj(
    appName=String(), **{name: opt(String()) for name in _CUSTOMIZATION_FIELDS}
)
# The sender options every mailing intent carries, beside its customization.
SENDER_PARAMS = {
    "sendFromEmailAddress": opt(String()),
    "sendFromEmailSenderName": opt(String()),
    "replyToEmailAddress": opt(String()),
}


def user_with_email(org: Organization, email: str) -> User:
    """The user of ``org`` whose e-mail address is ``email`` (case aside; the oldest if
    several have it), or the 404."""
    wanted = email.lower()
    for user in org.users.values():
        if user.email is not None and user.email.lower() == wanted:
            return user
    raise NotFound(messages.user_with_email_not_found(email, org.organization_id))


def sender_options(params: Mapping[str, Any]) -> Params:
    """The ``send_email`` keyword arguments an intent's parameters give: its
    ``emailCustomization`` and sender fields."""
    return {
        "customization": params.get("emailCustomization"),
        "send_from_address": params.get("sendFromEmailAddress"),
        "send_from_name": params.get("sendFromEmailSenderName"),
        "reply_to": params.get("replyToEmailAddress"),
    }


def check_customization(customization: Mapping[str, Any] | None) -> None:
    """The real 400s for a magic link template without ``%s`` and for template variables
    that are not a JSON object; nothing else is checked."""
    customization = customization or {}
    template = customization.get("magicLinkTemplate")
    if template and MAGIC_LINK_PLACEHOLDER not in template:
        raise InvalidArgument(messages.INVALID_MAGIC_LINK_TEMPLATE)
    variables = customization.get("templateVariables")
    if variables:
        _template_variables(variables)


def _template_variables(text: str) -> dict[str, Any]:
    try:
        parsed = jsontext.loads(text)
    except ValueError as exc:
        raise InvalidArgument(messages.TEMPLATE_VARIABLES_NOT_JSON) from exc
    if not isinstance(parsed, dict):
        raise InvalidArgument(messages.TEMPLATE_VARIABLES_NOT_JSON)
    return parsed


def magic_link(template: str, value: str) -> str:
    """The magic link: ``template`` with ``value`` in place of its ``%s``."""
    return template.replace(MAGIC_LINK_PLACEHOLDER, value, 1)


def sender(
    send_from_address: str | None, send_from_name: str | None, reply_to: str | None
) -> tuple[str, str, str | None]:
    """``(address, name, reply_to)`` of the e-mail, by the documented rules."""
    if not _valid_address(send_from_address):
        return DEFAULT_SENDER_ADDRESS, DEFAULT_SENDER_NAME, None
    assert send_from_address is not None
    return (
        send_from_address,
        send_from_name or DEFAULT_SENDER_NAME,
        reply_to if _valid_address(reply_to) else None,
    )


def _valid_address(address: str | None) -> bool:
    return bool(address) and _ADDRESS.fullmatch(address or "") is not None


def send_email(
    ctx: Context,
    *,
    to: str,
    template: str,
    fields: Mapping[str, Any],
    customization: Mapping[str, Any] | None = None,
    send_from_address: str | None = None,
    send_from_name: str | None = None,
    reply_to: str | None = None,
    magic_link_value: str | None = None,
) -> None:
    """Queue the e-mail ``template`` to ``to`` in the outbox; it is delivered when the
    activity commits. ``magic_link_value`` is what a ``magicLinkTemplate``'s ``%s``
    becomes (the bundle, the OTP code). Raises the real 400s of ``check_customization``."""
    check_customization(customization)
    if to.lower().rstrip(".").endswith(UNREACHABLE_TLD):
        raise InvalidArgument(messages.EMAIL_UNREACHABLE, turnkey_error_code="INVALID_FQDN")
    customization = customization or {}
    carried: Params = dict(fields)
    for name in ("appName", "logoUrl", "templateId"):
        if customization.get(name):
            carried[name] = customization[name]
    if customization.get("templateVariables"):
        carried["templateVariables"] = _template_variables(customization["templateVariables"])
    link_template = customization.get("magicLinkTemplate")
    if link_template and magic_link_value is not None:
        carried["magicLink"] = magic_link(link_template, magic_link_value)
    address, name, reply = sender(send_from_address, send_from_name, reply_to)
    ctx.world.outbox.send(
        ctx.tx,
        channel=EMAIL,
        to=to,
        template=template,
        organization_id=ctx.org.organization_id,
        time_ns=ctx.now_ns,
        fields=carried,
        sender_address=address,
        sender_name=name,
        reply_to=reply,
    )
