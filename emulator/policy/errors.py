"""The two ways a policy expression fails: it does not parse, or it does not evaluate.

They are kept apart because the engine reports them differently: a syntax error
rejects the policy when it is written, an evaluation error turns one policy's
outcome into an error for one activity.
"""

from __future__ import annotations


class PolicySyntaxError(ValueError):
    """The text is not a policy expression.

    ``detail`` is worded like the Display of the LALRPOP ``ParseError`` the real
    service reports (``Unrecognized EOF found at 0``), without LALRPOP's
    "Expected one of" tail; ``str()`` adds the ``parse error: `` prefix the
    service puts in front of it.  ``offset`` is where the problem starts, in
    UTF-8 bytes like LALRPOP's locations.
    """

    def __init__(self, detail: str, offset: int) -> None:
        super().__init__(detail)
        self.detail = detail
        self.offset = offset

    def __str__(self) -> str:
        return f"parse error: {self.detail}"


class PolicyEvaluationError(Exception):
    """Evaluating a parsed expression failed for this environment.

    The message starts with a kind (``MissingField``, ``TypeError``,
    ``IndexOutOfBounds``, ``InvalidArgument``) and a colon, so callers that
    care can branch on :attr:`kind` without parsing prose.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def kind(self) -> str:
        return self.message.partition(":")[0]

    def __str__(self) -> str:
        return self.message
