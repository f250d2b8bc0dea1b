"""Private keys and private key tags, through the facade and the wire."""

from __future__ import annotations

import coincurve
import nacl.signing
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from eth_account import Account

from emulator import Emulator, Settings, TurnkeyApiError
from emulator.accounts import account_spec
from emulator.ground import messages

from .helpers import (
    BAD_REQUEST,
    NIL_UUID,
    activity_body,
    error_of,
    fails,
    state_digest,
    user_params,
    violations,
)

SECP256K1, ED25519, P256 = "CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"
ETH, SOL = "ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"
COMPRESSED, UNCOMPRESSED = "ADDRESS_FORMAT_COMPRESSED", "ADDRESS_FORMAT_UNCOMPRESSED"
COMPLETED = "ACTIVITY_STATUS_COMPLETED"
DIGEST = "ab" * 32
# secp256k1 private key 1: the generator point and its well-known Ethereum address
ONE = "00" * 31 + "01"
ONE_PUBLIC = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
ONE_ETH = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
# RFC 8032 section 7.1, test 1
RFC8032_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
RFC8032_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
SECP256K1_ORDER = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"


@pytest.fixture
def emu(turnkey_emulator, turnkey_org):
    return turnkey_emulator


def key_params(name: str, curve: str = SECP256K1, formats=(), tags=()):
    return {
        "privateKeyName": name,
        "curve": curve,
        "privateKeyTags": list(tags),
        "addressFormats": list(formats),
    }


def create_key(emu, name: str, curve: str = SECP256K1, formats=(), tags=()) -> str:
    made = emu.create_private_keys(private_keys=[key_params(name, curve, formats, tags)])
    return made["privateKeys"][0]["privateKeyId"]


def sign(emu, sign_with: str, curve: str = SECP256K1):
    hash_function = "HASH_FUNCTION_NOT_APPLICABLE" if curve == ED25519 else "HASH_FUNCTION_NO_OP"
    return emu.sign_raw_payload(
        sign_with=sign_with,
        payload=DIGEST,
        encoding="PAYLOAD_ENCODING_HEXADECIMAL",
        hash_function=hash_function,
    )


def verify(curve: str, public_key: str, signature: dict) -> None:
    """Check a signature of DIGEST with an independent library."""
    r, s, v = signature["r"], signature["s"], signature["v"]
    message = bytes.fromhex(DIGEST)
    if curve == SECP256K1:
        recoverable = bytes.fromhex(r + s) + bytes([int(v, 16)])
        recovered = coincurve.PublicKey.from_signature_and_message(
            recoverable, message, hasher=None
        )
        assert recovered.format().hex() == public_key
    elif curve == ED25519:
        nacl.signing.VerifyKey(bytes.fromhex(public_key)).verify(message, bytes.fromhex(r + s))
    else:
        key = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), bytes.fromhex(public_key)
        )
        der = encode_dss_signature(int(r, 16), int(s, 16))
        key.verify(der, message, ec.ECDSA(Prehashed(hashes.SHA256())))


def assert_cannot_sign(emu, sign_with: str) -> None:
    error = fails(emu, sign, emu, sign_with)
    assert error_of(error) == (404, 5, "Could not find any resource to sign with.", "")


def tags_of(emu, key_id: str) -> list[str]:
    return emu.get_private_key(private_key_id=key_id)["privateKey"]["privateKeyTags"]


# --- create_private_keys ------------------------------------------------------------


def test_create_private_keys_v2(emu):
    secp_formats = [ETH, COMPRESSED, UNCOMPRESSED, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"]
    made = emu.create_private_keys(
        private_keys=[
            key_params("secp", SECP256K1, secp_formats),
            key_params("ed", ED25519, [SOL, COMPRESSED]),
            key_params("p256", P256, [COMPRESSED, UNCOMPRESSED]),
        ]
    )
    activity = made["activity"]
    assert (activity["status"], activity["type"]) == (
        COMPLETED,
        "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
    )
    assert list(activity["intent"]) == ["createPrivateKeysIntentV2"]
    assert activity["result"]["createPrivateKeysResultV2"] == {"privateKeys": made["privateKeys"]}
    secp, ed, p256 = made["privateKeys"]
    assert [a["format"] for a in secp["addresses"]] == secp_formats
    assert [a["format"] for a in ed["addresses"]] == [SOL, COMPRESSED]
    assert [a["format"] for a in p256["addresses"]] == [COMPRESSED, UNCOMPRESSED]
    assert all(set(k) == {"privateKeyId", "addresses"} for k in made["privateKeys"])
    keys = {k["privateKeyId"]: k for k in emu.list_private_keys()["privateKeys"]}

    # secp256k1: a compressed SEC1 key, its Ethereum address, its uncompressed form
    secret = emu.backdoor.private_key(secp["privateKeyId"])
    public = keys[secp["privateKeyId"]]["publicKey"]
    assert len(public) == 66 and public[:2] in ("02", "03")
    point = coincurve.PrivateKey(bytes.fromhex(secret)).public_key
    assert public == point.format().hex()
    eth, compressed, uncompressed, p2wpkh = (a["address"] for a in secp["addresses"])
    assert eth == Account.from_key(bytes.fromhex(secret)).address
    assert compressed == public and uncompressed == point.format(compressed=False).hex()
    assert p2wpkh.startswith("bc1q")

    # ed25519: the raw 32-byte key
    secret = emu.backdoor.private_key(ed["privateKeyId"])
    public = keys[ed["privateKeyId"]]["publicKey"]
    assert len(public) == 64
    assert public == bytes(nacl.signing.SigningKey(bytes.fromhex(secret)).verify_key).hex()
    assert ed["addresses"][1]["address"] == public

    # P-256: compressed and uncompressed SEC1
    secret = emu.backdoor.private_key(p256["privateKeyId"])
    public = keys[p256["privateKeyId"]]["publicKey"]
    point = ec.derive_private_key(int(secret, 16), ec.SECP256R1()).public_key()
    assert public == point.public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()
    assert p256["addresses"] == [
        {"format": COMPRESSED, "address": public},
        {
            "format": UNCOMPRESSED,
            "address": point.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint).hex(),
        },
    ]


def test_create_private_keys_v1_answers_ids(emu):
    made = emu.call(
        "create_private_keys",
        {"privateKeys": [key_params("a", SECP256K1, [ETH]), key_params("b", ED25519)]},
        activity_type="ACTIVITY_TYPE_CREATE_PRIVATE_KEYS",
    )
    assert set(made) == {"activity", "privateKeyIds"}
    ids = made["privateKeyIds"]
    assert len(ids) == 2
    activity = made["activity"]
    assert activity["type"] == "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS"
    assert list(activity["intent"]) == ["createPrivateKeysIntent"]
    assert activity["result"]["createPrivateKeysResult"] == {"privateKeyIds": ids}
    listed = emu.get_private_keys()["privateKeys"]
    assert [(k["privateKeyId"], k["privateKeyName"], k["curve"]) for k in listed] == [
        (ids[0], "a", SECP256K1),
        (ids[1], "b", ED25519),
    ]
    assert [a["format"] for a in listed[0]["addresses"]] == [ETH] and listed[1]["addresses"] == []


def test_repeated_address_formats_are_answered_once(emu):
    made = emu.create_private_keys(
        private_keys=[key_params("k", SECP256K1, [ETH, ETH, COMPRESSED])]
    )
    assert [a["format"] for a in made["privateKeys"][0]["addresses"]] == [ETH, COMPRESSED]


def test_private_key_names_are_unique(emu):
    create_key(emu, "taken")
    error = fails(emu, emu.create_private_keys, private_keys=[key_params("taken")])
    assert error_of(error) == (
        400,
        3,
        "invalid request (fieldViolations: privateKeys.0.privateKeyName)",
        "REQUEST_INVALID",
    )
    assert violations(error) == [
        {"field": "privateKeys.0.privateKeyName", "description": "This field must be unique."}
    ]
    # within one request too: the second entry is the clash
    error = fails(
        emu, emu.create_private_keys, private_keys=[key_params("new"), key_params("new", ED25519)]
    )
    assert violations(error) == [
        {"field": "privateKeys.1.privateKeyName", "description": "This field must be unique."}
    ]
    assert [k["privateKeyName"] for k in emu.list_private_keys()["privateKeys"]] == ["taken"]


def test_unknown_tag_is_404(emu, turnkey_org):
    error = fails(emu, emu.create_private_keys, private_keys=[key_params("k", tags=[NIL_UUID])])
    assert error_of(error) == (
        404,
        5,
        f"unable to find private key tag {NIL_UUID} in organization {turnkey_org.organization_id}",
        "",
    )


@pytest.mark.parametrize(
    ("curve", "address_format"),
    [(ED25519, ETH), (SECP256K1, SOL), (P256, ETH), (ED25519, UNCOMPRESSED), (P256, SOL)],
)
def test_address_format_must_fit_the_curve(emu, curve, address_format):
    error = fails(
        emu,
        emu.create_private_keys,
        private_keys=[key_params("ok"), key_params("bad", curve, [address_format])],
    )
    assert error_of(error) == (
        400,
        3,
        f"invalid address format: {address_format} is not available on {curve}",
        "REQUEST_INVALID",
    )


def test_private_key_limit():
    emu = Emulator(settings=Settings(max_private_keys_per_organization=2))
    emu.create_organization()
    create_key(emu, "a")
    error = fails(emu, emu.create_private_keys, private_keys=[key_params("b"), key_params("c")])
    assert error_of(error) == (
        429,
        8,
        "organization has exceeded maximum private keys",
        "RATE_LIMIT_EXCEEDED",
    )
    create_key(emu, "b")
    with pytest.raises(TurnkeyApiError) as caught:
        emu.backdoor.import_private_key(ONE)
    assert caught.value.status == 429
    assert len(emu.list_private_keys()["privateKeys"]) == 2


# --- queries ------------------------------------------------------------------------


def test_get_private_key_shape(emu, turnkey_org):
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=[])[
        "privateKeyTagId"
    ]
    key_id = create_key(emu, "mine", SECP256K1, [ETH], tags=[tag_id])
    answer = emu.get_private_key(private_key_id=key_id)
    key = answer["privateKey"]
    assert key == {
        "privateKeyId": key_id,
        "publicKey": key["publicKey"],
        "privateKeyName": "mine",
        "curve": SECP256K1,
        "addresses": [{"format": ETH, "address": key["addresses"][0]["address"]}],
        "privateKeyTags": [tag_id],
        "createdAt": key["createdAt"],
        "updatedAt": key["createdAt"],
        "exported": False,
        "imported": False,
    }
    assert set(key["createdAt"]) == {"seconds", "nanos"}
    assert answer["activity"]["type"] == "ACTIVITY_TYPE_UNKNOWN_V1"
    assert answer["activity"]["result"] == {"privateKey": key}
    error = fails(emu, emu.get_private_key, private_key_id=NIL_UUID)
    assert error_of(error) == (
        404,
        5,
        f"unable to find private key {NIL_UUID} in organization {turnkey_org.organization_id}",
        "",
    )


def test_list_private_keys_in_creation_order(emu):
    assert emu.list_private_keys()["privateKeys"] == []
    ids = [create_key(emu, name, curve) for name, curve in (("x", P256), ("y", ED25519))]
    imported = emu.backdoor.import_private_key(ONE, name="one")["privateKeyId"]
    listed = emu.list_private_keys()["privateKeys"]
    assert listed == emu.get_private_keys()["privateKeys"]
    assert [k["privateKeyId"] for k in listed] == [*ids, imported]
    assert listed == [emu.get_private_key(private_key_id=k)["privateKey"] for k in [*ids, imported]]
    assert [k["imported"] for k in listed] == [False, False, True]


# --- delete_private_keys ------------------------------------------------------------


def test_delete_private_keys_needs_an_export_first(emu):
    exported = create_key(emu, "exported", SECP256K1, [ETH])
    plain = create_key(emu, "plain", SECP256K1, [ETH])
    (org,) = emu.world.store.organizations.values()
    org.private_keys[exported].exported = True
    error = fails(emu, emu.delete_private_keys, private_key_ids=[exported, plain])
    assert error_of(error) == (
        400,
        3,
        f"private key has not been exported: set deleteWithoutExport to delete it anyway id={plain}",
        "",
    )
    assert error.message == messages.not_exported(messages.PRIVATE_KEY_NOT_EXPORTED, plain)
    # an exported key goes without the flag
    result = emu.delete_private_keys(private_key_ids=[exported])
    assert result["privateKeyIds"] == [exported]
    assert result["activity"]["result"]["deletePrivateKeysResult"] == {"privateKeyIds": [exported]}
    assert [k["privateKeyId"] for k in emu.list_private_keys()["privateKeys"]] == [plain]


def test_delete_without_export(emu, turnkey_org):
    key_id = create_key(emu, "doomed", SECP256K1, [ETH, COMPRESSED])
    addresses = [
        a["address"] for a in emu.get_private_key(private_key_id=key_id)["privateKey"]["addresses"]
    ]
    result = emu.delete_private_keys(privateKeyIds=[key_id, key_id], deleteWithoutExport=True)
    assert result["privateKeyIds"] == [key_id]
    assert emu.list_private_keys()["privateKeys"] == []
    assert key_id not in emu.world.store.vault.private_keys
    error = fails(emu, emu.get_private_key, private_key_id=key_id)
    assert error.message == messages.private_key_not_found(key_id, turnkey_org.organization_id)
    for sign_with in (key_id, *addresses):
        assert_cannot_sign(emu, sign_with)
    create_key(emu, "doomed")  # the name is free again


def test_delete_unknown_private_key(emu, turnkey_org):
    key_id = create_key(emu, "k")
    error = fails(
        emu, emu.delete_private_keys, private_key_ids=[key_id, NIL_UUID], delete_without_export=True
    )
    assert error_of(error) == (
        404,
        5,
        messages.private_key_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )


# --- signing ------------------------------------------------------------------------

SIGNING_FORMATS = {
    # (a P2TR address signs Schnorr instead: tests/test_taproot_signing.py)
    SECP256K1: [ETH, COMPRESSED, UNCOMPRESSED, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"],
    ED25519: [SOL, COMPRESSED, "ADDRESS_FORMAT_SUI"],
    P256: [COMPRESSED, UNCOMPRESSED],
}


@pytest.mark.parametrize("curve", list(SIGNING_FORMATS))
def test_a_private_key_signs_by_id_and_by_each_address(emu, curve):
    key_id = create_key(emu, "signer", curve, SIGNING_FORMATS[curve])
    key = emu.get_private_key(private_key_id=key_id)["privateKey"]
    names = [key_id, *(a["address"] for a in key["addresses"])]
    signatures = [sign(emu, name, curve) for name in names]
    for signature in signatures:
        verify(curve, key["publicKey"], signature)
    if curve != P256:  # RFC 6979 and ed25519 are deterministic: the same signature each time
        assert len({(s["r"], s["s"], s["v"]) for s in signatures}) == 1
    assert all(emu.backdoor.private_key(n) == emu.backdoor.private_key(key_id) for n in names)


# --- private key tags ---------------------------------------------------------------


@pytest.fixture
def three_keys(emu):
    return [create_key(emu, name) for name in ("a", "b", "c")]


def test_create_private_key_tag_tags_the_keys(emu, three_keys):
    a, b, _ = three_keys
    made = emu.create_private_key_tag(privateKeyTagName="hot", privateKeyIds=[a, b, a])
    tag_id = made["privateKeyTagId"]
    assert made["privateKeyIds"] == [a, b]
    assert made["activity"]["result"]["createPrivateKeyTagResult"] == {
        "privateKeyTagId": tag_id,
        "privateKeyIds": [a, b],
    }
    assert [tags_of(emu, k) for k in three_keys] == [[tag_id], [tag_id], []]
    (tag,) = emu.list_private_key_tags()["privateKeyTags"]
    assert tag == {
        "tagId": tag_id,
        "tagName": "hot",
        "tagType": "TAG_TYPE_PRIVATE_KEY",
        "createdAt": tag["createdAt"],
        "updatedAt": tag["createdAt"],
    }
    assert emu.list_user_tags()["userTags"] == []
    # keys made later may carry it from the start
    later = create_key(emu, "d", tags=[tag_id])
    assert tags_of(emu, later) == [tag_id]


def test_create_private_key_tag_errors(emu, three_keys, turnkey_org):
    emu.create_private_key_tag(private_key_tag_name="hot", private_key_ids=[])
    error = fails(emu, emu.create_private_key_tag, private_key_tag_name="hot", private_key_ids=[])
    assert error_of(error) == (400, 3, messages.tag_name_taken("hot"), "REQUEST_INVALID")
    error = fails(
        emu,
        emu.create_private_key_tag,
        private_key_tag_name="cold",
        private_key_ids=[three_keys[0], NIL_UUID],
    )
    assert error_of(error) == (
        404,
        5,
        messages.private_key_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    assert [t["tagName"] for t in emu.list_private_key_tags()["privateKeyTags"]] == ["hot"]


def test_update_private_key_tag_renames_and_moves_keys(emu, three_keys):
    a, b, c = three_keys
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=[a, b])[
        "privateKeyTagId"
    ]
    result = emu.update_private_key_tag(
        private_key_tag_id=tag_id,
        new_private_key_tag_name="renamed",
        add_private_key_ids=[c],
        remove_private_key_ids=[a],
    )
    assert result["privateKeyTagId"] == tag_id
    assert result["activity"]["result"]["updatePrivateKeyTagResult"] == {"privateKeyTagId": tag_id}
    assert [tags_of(emu, k) for k in three_keys] == [[], [tag_id], [tag_id]]
    assert emu.list_private_key_tags()["privateKeyTags"][0]["tagName"] == "renamed"


def test_update_private_key_tag_is_atomic(emu, three_keys, turnkey_org):
    a, _, _ = three_keys
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=[])[
        "privateKeyTagId"
    ]
    error = fails(
        emu,
        emu.update_private_key_tag,
        private_key_tag_id=tag_id,
        new_private_key_tag_name="new",
        add_private_key_ids=[a, NIL_UUID],
        remove_private_key_ids=[],
    )
    assert error_of(error) == (
        404,
        5,
        messages.private_key_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    assert emu.list_private_key_tags()["privateKeyTags"][0]["tagName"] == "t"
    assert tags_of(emu, a) == []


def test_update_private_key_tag_errors(emu, three_keys, turnkey_org):
    emu.create_private_key_tag(private_key_tag_name="other", private_key_ids=[])
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=[])[
        "privateKeyTagId"
    ]
    error = fails(
        emu,
        emu.update_private_key_tag,
        private_key_tag_id=NIL_UUID,
        add_private_key_ids=[],
        remove_private_key_ids=[],
    )
    assert error_of(error) == (
        404,
        5,
        messages.private_key_tag_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    error = fails(
        emu,
        emu.update_private_key_tag,
        private_key_tag_id=tag_id,
        new_private_key_tag_name="other",
        add_private_key_ids=three_keys,
        remove_private_key_ids=[],
    )
    assert error_of(error) == (400, 3, messages.tag_name_taken("other"), "REQUEST_INVALID")


def test_delete_private_key_tags_untags_the_keys(emu, three_keys):
    a, b, c = three_keys
    keep = emu.create_private_key_tag(private_key_tag_name="keep", private_key_ids=[a])
    drop = emu.create_private_key_tag(private_key_tag_name="drop", private_key_ids=[c, a])
    other = emu.create_private_key_tag(private_key_tag_name="other", private_key_ids=[b])
    keep, drop, other = (t["privateKeyTagId"] for t in (keep, drop, other))
    result = emu.delete_private_key_tags(private_key_tag_ids=[drop, other, drop])
    assert (result["privateKeyTagIds"], result["privateKeyIds"]) == ([drop, other], [a, b, c])
    assert result["activity"]["result"]["deletePrivateKeyTagsResult"] == {
        "privateKeyTagIds": [drop, other],
        "privateKeyIds": [a, b, c],
    }
    assert [tags_of(emu, k) for k in three_keys] == [[keep], [], []]
    assert [t["tagId"] for t in emu.list_private_key_tags()["privateKeyTags"]] == [keep]


def test_delete_unknown_private_key_tag(emu, three_keys, turnkey_org):
    tag_id = emu.create_private_key_tag(private_key_tag_name="t", private_key_ids=three_keys)[
        "privateKeyTagId"
    ]
    error = fails(emu, emu.delete_private_key_tags, private_key_tag_ids=[tag_id, NIL_UUID])
    assert error_of(error) == (
        404,
        5,
        messages.private_key_tag_not_found(NIL_UUID, turnkey_org.organization_id),
        "",
    )
    assert [tags_of(emu, k) for k in three_keys] == [[tag_id]] * 3


def test_user_tags_and_private_key_tags_share_the_limit():
    emu = Emulator(settings=Settings(max_tags_per_organization=2))
    emu.create_organization()
    emu.create_user_tag(user_tag_name="users", user_ids=[])
    tag_id = emu.create_private_key_tag(private_key_tag_name="keys", private_key_ids=[])[
        "privateKeyTagId"
    ]
    exhausted = (429, 8, "organization has exceeded maximum tags", "RATE_LIMIT_EXCEEDED")
    error = fails(emu, emu.create_private_key_tag, private_key_tag_name="k2", private_key_ids=[])
    assert error_of(error) == exhausted
    error = fails(emu, emu.create_user_tag, user_tag_name="u2", user_ids=[])
    assert error_of(error) == exhausted
    emu.delete_private_key_tags(private_key_tag_ids=[tag_id])
    emu.create_user_tag(user_tag_name="u2", user_ids=[])
    assert len(emu.list_user_tags()["userTags"]) == 2


def test_user_tags_are_not_private_key_tags(emu, three_keys, turnkey_org):
    user_tag = emu.create_user_tag(user_tag_name="u", user_ids=[])["userTagId"]
    error = fails(emu, emu.create_private_keys, private_keys=[key_params("k", tags=[user_tag])])
    assert error.message == messages.private_key_tag_not_found(
        user_tag, turnkey_org.organization_id
    )
    assert emu.list_private_key_tags()["privateKeyTags"] == []
    emu.create_users(users=[user_params("bob", user_tags=[user_tag])])


# --- the wire -----------------------------------------------------------------------


def test_private_keys_on_the_wire(wire, turnkey_emulator, turnkey_org):
    org_id = turnkey_org.organization_id
    params = {"privateKeys": [key_params("wired", SECP256K1, [ETH])]}
    body = activity_body("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", org_id, params)
    status, answer = wire.post("/public/v1/submit/create_private_keys", body, turnkey_org.api_key)
    assert status == 200 and answer["activity"]["status"] == COMPLETED
    (made,) = answer["activity"]["result"]["createPrivateKeysResultV2"]["privateKeys"]
    status, answer = wire.post(
        "/public/v1/query/get_private_key",
        {"organizationId": org_id, "privateKeyId": made["privateKeyId"]},
        turnkey_org.api_key,
    )
    assert status == 200 and answer["privateKey"]["addresses"] == made["addresses"]

    before = state_digest(turnkey_emulator)
    body = activity_body("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", org_id, params)
    status, answer = wire.post("/public/v1/submit/create_private_keys", body, turnkey_org.api_key)
    assert (status, answer["code"], answer["turnkeyErrorCode"]) == (400, 3, "REQUEST_INVALID")
    assert answer["message"] == "invalid request (fieldViolations: privateKeys.0.privateKeyName)"
    assert answer["details"][1] == {
        "@type": BAD_REQUEST,
        "fieldViolations": [
            {"field": "privateKeys.0.privateKeyName", "description": "This field must be unique."}
        ],
    }
    status, answer = wire.post(
        "/public/v1/query/get_private_key",
        {"organizationId": org_id, "privateKeyId": NIL_UUID},
        turnkey_org.api_key,
    )
    assert (status, answer["code"]) == (404, 5)
    assert state_digest(turnkey_emulator) == before


# --- the backdoor -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("private_key", "curve"),
    [
        ("zz" * 32, SECP256K1),  # not hex
        ("ab" * 31, SECP256K1),  # 31 bytes
        ("ab" * 33, ED25519),  # 33 bytes
        ("00" * 32, SECP256K1),  # zero is no scalar
        (SECP256K1_ORDER, SECP256K1),  # the order is no scalar
        ("00" * 32, P256),
        ("", ED25519),
    ],
)
def test_import_private_key_refuses_a_bad_key(emu, private_key, curve):
    before = state_digest(emu)
    with pytest.raises(ValueError):
        emu.backdoor.import_private_key(private_key, curve=curve)
    assert state_digest(emu) == before


def test_import_private_key_known_vectors(emu):
    activities = emu.list_activities()["activities"]
    one = emu.backdoor.import_private_key("0x" + ONE, name="one", address_formats=[ETH])
    assert one["addresses"] == [{"format": ETH, "address": ONE_ETH}]
    ed = emu.backdoor.import_private_key(
        RFC8032_SECRET, curve=ED25519, name="rfc", address_formats=[COMPRESSED]
    )
    assert ed["addresses"] == [{"format": COMPRESSED, "address": RFC8032_PUBLIC}]
    keys = emu.list_private_keys()["privateKeys"]
    assert [(k["publicKey"], k["imported"]) for k in keys] == [
        (ONE_PUBLIC, True),
        (RFC8032_PUBLIC, True),
    ]
    assert emu.backdoor.private_key(ONE_ETH) == ONE
    assert emu.backdoor.private_key(ed["privateKeyId"]) == RFC8032_SECRET
    plain = emu.backdoor.import_private_key(ONE, name="plain", imported=False)["privateKeyId"]
    assert emu.get_private_key(private_key_id=plain)["privateKey"]["imported"] is False
    assert emu.list_activities()["activities"] == activities  # no activity for any of it
    verify(SECP256K1, ONE_PUBLIC, sign(emu, ONE_ETH))
    verify(ED25519, RFC8032_PUBLIC, sign(emu, ed["privateKeyId"], ED25519))


def test_a_private_key_still_signs_by_an_address_a_deleted_wallet_shared(emu):
    wallet = emu.create_wallet(wallet_name="w", accounts=[account_spec(ETH)])
    (address,) = wallet["addresses"]
    secret = emu.backdoor.private_key(address)
    emu.backdoor.import_private_key(secret, name="same", address_formats=[ETH])
    emu.delete_wallets(wallet_ids=[wallet["walletId"]], delete_without_export=True)
    assert sign(emu, address)["r"]
