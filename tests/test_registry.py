"""The registry is the one source of truth: router, facade, docs and SDK agree with it."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path

import pytest

from emulator import Emulator
from emulator.facade.runtime import facade_method_names
from emulator.ground.schema import Array, Object
from emulator.ops import ACTIVITY, QUERY, REGISTRY, find_by_path
from emulator.ops.table import operations_table

turnkey_http = pytest.importorskip("turnkey_http")
sdk_types = pytest.importorskip("turnkey_sdk_types")
TurnkeyClient = turnkey_http.TurnkeyClient
SDK_SOURCE = inspect.getsource(inspect.getmodule(TurnkeyClient))

OPS = sorted(REGISTRY.values(), key=lambda op: op.name)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_router_serves_each_operation_at_its_path(op):
    assert find_by_path(op.path) is op
    other_kind = (
        op.path.replace("/submit/", "/query/")
        if op.kind == ACTIVITY
        else op.path.replace("/query/", "/submit/")
    )
    assert find_by_path(other_kind) is None


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_facade_has_a_method_per_name(op):
    for name in facade_method_names(op):
        method = getattr(Emulator, name)
        assert op.path in method.__doc__


def test_facade_has_no_method_the_registry_does_not_know():
    plumbing = {
        "auth_proxy",
        "backdoor",
        "call",
        "calls",
        "faults",
        "swap",
        "organization",
        "outbox",
        "checkpoint",
        "reset",
        "restore",
        "rollback",
        "snapshot",
        "client",
        "clock",
        "enclave",
        "create_organization",
        "intercept",
        "load",
        "oidc",
        "oauth2",
        "from_document",
        "save",
        "seed",
        "webhooks",
        "close",
        "settings",
        "to_document",
        "facade_document",
        "held_keys",
        "world",
        "wsgi_app",
        "asgi_app",
        "chains",
        "onramp",
        "tvc",
        "earn",
    }
    names = {name for op in OPS for name in facade_method_names(op)}
    public = {n for n in dir(Emulator) if not n.startswith("_")}
    assert public - names == plumbing


def test_docs_table_matches_registry():
    table = (Path(__file__).parent.parent / "docs" / "operations.md").read_text()
    assert table == operations_table(), (
        "regenerate: python -m emulator.ops.table > docs/operations.md"
    )


PYTHON_SDK_OPS = [op for op in OPS if op.in_python_sdk]
# In the Python SDK's types (its activity type, intent and result) but in neither client's
# methods yet: served at the path its docs page gives.
TYPES_ONLY = {"create_fiat_on_ramp_session"}
TYPESCRIPT_ONLY_OPS = [op for op in OPS if not op.in_python_sdk and op.name not in TYPES_ONLY]
TS_CLIENT = (
    Path(__file__).parent
    / "interop/node_modules/@turnkey/http/dist/__generated__/services/coordinator/public/v1"
    / "public_api.client.js"
)


@pytest.mark.parametrize("op", PYTHON_SDK_OPS, ids=lambda op: op.name)
def test_sdk_method_calls_this_path_with_this_type(op):
    method = getattr(TurnkeyClient, op.sdk_method)
    source = inspect.getsource(method)
    assert f'"{op.path}"' in source
    if op.kind == ACTIVITY:
        assert f'"type": "{op.default_type}"' in source
    if op.kind == ACTIVITY and op.vote_selection is None:
        assert f'"{op.default_version.result_key}"' in source


@pytest.mark.parametrize("op", TYPESCRIPT_ONLY_OPS, ids=lambda op: op.name)
def test_an_operation_the_python_sdk_lacks_is_in_the_typescript_client(op):
    from tests.typescript import typescript_or_skip

    assert not hasattr(TurnkeyClient, op.sdk_method)
    typescript_or_skip()  # installs @turnkey/http on first use; skips without node
    assert f'"{op.path}"' in TS_CLIENT.read_text()  # (its types: the test below)


@pytest.mark.parametrize("name", sorted(TYPES_ONLY))
def test_an_operation_only_the_types_name_is_in_the_types_and_no_client(name):
    op = REGISTRY[name]
    assert not op.in_python_sdk and not hasattr(TurnkeyClient, op.sdk_method)
    assert op.default_type in {t.value for t in sdk_types.v1ActivityType}
    assert op.default_version.intent_key in sdk_types.v1Intent.model_fields
    assert op.default_version.result_key in sdk_types.v1Result.model_fields
    if TS_CLIENT.exists():
        assert f'"{op.path}"' not in TS_CLIENT.read_text()


@pytest.mark.parametrize("op", [op for op in OPS if op.kind == ACTIVITY], ids=lambda op: op.name)
def test_every_version_names_real_types_and_keys(op):
    intent_fields = sdk_types.v1Intent.model_fields
    result_fields = sdk_types.v1Result.model_fields
    known_types = {t.value for t in sdk_types.v1ActivityType}
    typescript = TYPESCRIPT_ONLY_SPEC.get(op.path, {})
    for version in op.versions:
        if version.activity_type not in known_types and "intent_key" in typescript:
            # a type only the TypeScript client knows: its keys from the OpenAPI document
            assert version.activity_type in typescript["type"]
            assert (version.intent_key, version.result_key) == (
                typescript["intent_key"],
                typescript["result_key"],
            )
            continue
        assert version.activity_type in known_types
        assert version.intent_key in intent_fields
        # A vote answers the activity it is cast on: it has no result of its own.
        assert version.result_key in result_fields or (op.vote_selection and not version.result_key)
        if version.seed_intent_key:
            assert version.seed_intent_key in intent_fields


def _resolve(annotation):
    if isinstance(annotation, typing.ForwardRef):
        return eval(annotation.__forward_arg__, vars(sdk_types.generated.types))
    if isinstance(annotation, str):
        return eval(annotation, vars(sdk_types.generated.types))
    return annotation


def _model_of(annotation):
    """The pydantic model inside Optional[...] / List[...], and whether it was a list."""
    annotation = _resolve(annotation)
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        inner, _ = _model_of(args[0])
        return inner, True
    if args:  # Optional / Union
        for arg in args:
            if arg is not type(None):
                return _model_of(arg)
    return annotation, False


def _compare(spec: Object, model, path: str) -> list[str]:
    problems = []
    # wire names: a field named after a Python keyword has its wire name as alias (``from``)
    fields = {f.alias or name: f for name, f in model.model_fields.items()}
    # issue 25: the TypeScript docs' ``chainCaip2`` is accepted beside the SDK's ``caip2``
    names = set(spec.fields) - ({"chainCaip2"} if "caip2" in fields else set())
    if names != set(fields):
        problems.append(f"{path}: fields {sorted(spec.fields)} != SDK {sorted(fields)}")
        return problems
    for name, field in spec.fields.items():
        if name not in names:
            continue
        sdk_field = fields[name]
        either = name == "caip2" and "chainCaip2" in spec.fields  # one of the two is required
        if field.required != sdk_field.is_required() and not either:
            problems.append(
                f"{path}.{name}: required={field.required}, SDK {sdk_field.is_required()}"
            )
        inner_spec = field.spec.items if isinstance(field.spec, Array) else field.spec
        inner_model, _ = _model_of(sdk_field.annotation)
        if isinstance(inner_spec, Object) and hasattr(inner_model, "model_fields"):
            problems += _compare(inner_spec, inner_model, f"{path}.{name}")
    return problems


@pytest.mark.parametrize("op", [op for op in OPS if op.kind == ACTIVITY], ids=lambda op: op.name)
def test_parameter_schemas_match_the_sdk_intent_models(op):
    for version in op.versions:
        if version.intent_key not in sdk_types.v1Intent.model_fields:
            continue  # a TypeScript-only version: checked against the OpenAPI document below
        model, _ = _model_of(sdk_types.v1Intent.model_fields[version.intent_key].annotation)
        assert _compare(version.params, model, version.activity_type) == []


TYPESCRIPT_ONLY_SPEC = json.loads(
    (Path(__file__).parent.parent / "fixtures/openapi-typescript-only.json").read_text()
)["operations"]


@pytest.mark.parametrize("op", TYPESCRIPT_ONLY_OPS, ids=lambda op: op.name)
def test_an_operation_the_python_sdk_lacks_matches_the_openapi_document(op):
    spec = TYPESCRIPT_ONLY_SPEC[op.path]
    if op.kind == QUERY:
        fields = set(spec["request"]["properties"]) - {"organizationId"}
        assert set(op.body.fields) == fields
        assert set(spec["response"]["required"]) <= set(op.result_keys)
        return
    # Every type the TypeScript client knows (older ones the Python SDK's types name may follow).
    assert set(spec["type"]) <= set(op.activity_types) and op.default_type in spec["type"]
    params = op.default_version.params
    assert set(params.fields) == set(spec["intent"]["properties"])
    assert {n for n, f in params.fields.items() if f.required} == set(spec["intent"]["required"])


@pytest.mark.parametrize(
    "op", [op for op in PYTHON_SDK_OPS if op.kind == QUERY], ids=lambda op: op.name
)
def test_query_bodies_match_the_sdk_body_models(op):
    annotation = (
        inspect.signature(getattr(TurnkeyClient, op.sdk_method)).parameters["input"].annotation
    )
    body_model, _ = _model_of(annotation)
    fields = {k: v for k, v in body_model.model_fields.items() if k != "organizationId"}
    assert set(op.body.fields) == set(fields)
    for name, field in op.body.fields.items():
        assert field.required == fields[name].is_required(), name


@pytest.mark.parametrize(
    "op", [op for op in PYTHON_SDK_OPS if op.kind == QUERY], ids=lambda op: op.name
)
def test_query_result_keys_match_the_sdk_response_models(op):
    response_model = inspect.signature(getattr(TurnkeyClient, op.sdk_method)).return_annotation
    if isinstance(response_model, str):
        response_model = getattr(sdk_types, response_model)
    required = {k for k, f in response_model.model_fields.items() if f.is_required()}
    assert required <= set(op.result_keys) <= set(response_model.model_fields)
