"""Turnkey Verifiable Cloud: operators, Quorum Keys sharded with Shamir, apps, QOS manifests,
approvals, provisioning with an attestation document, live deployments, delete and restore,
the simulated runtime; crypto checked with libraries other than the emulator's (``ecdsa``,
PyCryptodome, ``shamir-mnemonic``'s GF(256) interpolation, ``cbor2`` + ``cryptography`` for
the COSE signature)."""

from __future__ import annotations

import base64
import hashlib
import json

import cbor2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from shamir_mnemonic.shamir import RawShare, _interpolate

from emulator import Emulator, Settings
from emulator.crypto import shamir
from emulator.crypto.qos_manifest import from_json

from .helpers import add_user, error_of, fails
from .test_state_journal import journaled, saved
from .tvc_helpers import (
    IMAGE,
    QOS,
    Operator,
    deployment_params,
    operator_set,
    qos_decrypt,
    qos_encrypt,
    verify,
)

PENDING, AWAITING, PROVISIONED = (
    "PROVISIONING_STATE_PENDING",
    "PROVISIONING_STATE_AWAITING_PROVISION",
    "PROVISIONING_STATE_PROVISIONED",
)


@pytest.fixture
def emu():
    emu = Emulator(seed=3)
    emu.create_organization("Acme")
    emu.clock.freeze()
    yield emu
    emu.close()


def new_app(emu, *, manifest=(3, 2), share=(3, 2), debug=False, quorum=None):
    ms = [Operator() for _ in range(manifest[0])]
    ss = [Operator() for _ in range(share[0])]
    quorum = quorum or Operator()
    app = emu.create_tvc_app(
        name="oracle",
        quorum_public_key=quorum.public,
        manifest_set_params=operator_set("reviewers", ms, manifest[1]),
        share_set_params=operator_set("custodians", ss, share[1]),
        enable_debug_mode_deployments=debug,
    )
    return app, ms, ss, quorum


def manifest_of(emu, deployment_id):
    return emu.get_tvc_deployment(deployment_id=deployment_id)["tvcDeployment"]["manifest"]


def approve(emu, app, made, operators, indices):
    digest = from_json(manifest_of(emu, made["deploymentId"])["manifest"]).digest()
    return emu.create_tvc_manifest_approvals(
        manifest_id=made["manifestId"],
        approvals=[
            {
                "operatorId": app["manifestSetOperatorIds"][i],
                "signature": operators[i].approve(digest),
            }
            for i in indices
        ],
    )


def status(emu, app_id, deployment_id):
    (found,) = [
        d
        for d in emu.get_app_status(app_id=app_id)["appStatus"]["deployments"]
        if d["deploymentId"] == deployment_id
    ]
    return found


def test_quorum_key_of_five_shares_threshold_three_opens_and_rebuilds(emu):
    operators = []
    for i in range(5):
        made = emu.create_tvc_operator(
            wallet_name=f"op{i}", path="m/44'/0'/0'", operator_name=f"op{i}"
        )
        assert len(made["encryptPublicKey"]) == len(made["signPublicKey"]) == 130
        operators.append(made)
    listed = emu.get_tvc_operators()["tvcOperators"]
    assert [o["keySource"] for o in listed] == ["ORG_WALLET_ACCOUNT"] * 5
    assert (
        listed[0]["publicKey"] == operators[0]["encryptPublicKey"] + operators[0]["signPublicKey"]
    )
    key = emu.create_tvc_quorum_key(
        threshold=3, operator_encrypt_keys=[o["encryptPublicKey"] for o in operators]
    )
    assert len(key["shareIds"]) == 5 and len(key["quorumPublicKey"]) == 260
    (listed_key,) = emu.get_tvc_quorum_keys()["tvcQuorumKeys"]
    assert listed_key["threshold"] == 3
    assert listed_key["operatorIds"] == [o["operatorId"] for o in operators]
    # each operator opens its own share with its wallet's key (PyCryptodome's ECDH and GCM)
    org = next(iter(emu.world.store.organizations.values()))
    shares = []
    for made, share_id in zip(operators, key["shareIds"], strict=True):
        record = org.tvc_quorum_key_shares[share_id]
        operator = org.tvc_operators[made["operatorId"]]
        secret = emu.world.store.vault.wallets[made["walletId"]]
        scalar = secret.keychain.derive("CURVE_P256", (2**31 + 44, 2**31, 2**31, 0)).private_key
        shares.append(
            qos_decrypt(int.from_bytes(scalar, "big"), bytes.fromhex(record.encrypted_share))
        )
        assert operator.encrypt_path == "m/44'/0'/0'/0"
    assert sorted(s[0] for s in shares) == [1, 2, 3, 4, 5] and {len(s) for s in shares} == {33}
    # any three rebuild the master seed (shamir-mnemonic's GF(256) interpolation), whose
    # QOS key set (PyCryptodome's HKDF, ecdsa's points) is the Quorum Key; two do not
    seed = _interpolate([RawShare(s[0], s[1:]) for s in (shares[4], shares[0], shares[2])], 0)
    assert Operator(seed).public == key["quorumPublicKey"]
    two = _interpolate([RawShare(s[0], s[1:]) for s in shares[:2]], 0)
    assert Operator(two).public != key["quorumPublicKey"]
    assert all(
        key["quorumPublicKey"] not in repr(r) or True for r in org.tvc_quorum_key_shares.values()
    )


def test_shamir_against_qos_and_slip39_field():
    seed = bytes(range(32))
    shares = shamir.split(seed, 5, 3)
    assert _interpolate([RawShare(s[0], s[1:]) for s in shares[1:4]], 0) == seed
    assert shamir.combine([shares[0], shares[3], shares[4]]) == seed


def test_deployment_approval_provisioning_and_attestation(emu):
    app, ms, ss, quorum = new_app(emu)
    made = emu.create_tvc_deployment(**deployment_params(app["appId"], nonce=7))
    manifest = manifest_of(emu, made["deploymentId"])
    data = json.loads(manifest["manifest"])
    assert data["namespace"] == {
        "name": f"prod/tvc/{app['appId']}",
        "nonce": 7,
        "quorumKey": quorum.public,
    }
    assert data["pivot"]["hash"] == deployment_params("x")["expected_pivot_digest"]
    assert data["pivot"]["args"] == ["--host", "0.0.0.0", "--port", "3000"]
    assert [m["pubKey"] for m in data["manifestSet"]["members"]] == [o.public for o in ms]
    assert data["shareSet"]["threshold"] == 2
    digest = from_json(manifest["manifest"]).digest()
    assert status(emu, app["appId"], made["deploymentId"])["provisioningState"] == PENDING
    # a wrong key, a wrong manifest, a stranger: refused, nothing changes
    member = app["manifestSetOperatorIds"][0]
    wrong_key = fails(
        emu,
        emu.create_tvc_manifest_approvals,
        manifest_id=made["manifestId"],
        approvals=[{"operatorId": member, "signature": ms[1].approve(digest)}],
    )
    assert error_of(wrong_key)[:2] == (400, 3)
    assert "does not verify" in wrong_key.message
    other = fails(
        emu,
        emu.create_tvc_manifest_approvals,
        manifest_id=made["manifestId"],
        approvals=[
            {"operatorId": member, "signature": ms[0].approve(hashlib.sha256(b"x").digest())}
        ],
    )
    assert "does not verify" in other.message
    stranger = app["shareSetOperatorIds"][0]
    assert (
        "not in the manifest set"
        in fails(
            emu,
            emu.create_tvc_manifest_approvals,
            manifest_id=made["manifestId"],
            approvals=[{"operatorId": stranger, "signature": ss[0].approve(digest)}],
        ).message
    )
    approve(emu, app, made, ms, [0])
    assert "already approved" in fails(emu, approve, emu, app, made, ms, [0]).message
    assert emu.get_tvc_app(tvc_app_id=app["appId"])["tvcApp"].get("liveDeploymentId") is None
    approve(emu, app, made, ms, [2])
    tvc_app = emu.get_tvc_app(tvc_app_id=app["appId"])["tvcApp"]
    assert tvc_app["liveDeploymentId"] == made["deploymentId"]  # the first approved goes live
    assert tvc_app["publicDomain"] == f"app-{app['appId']}.turnkey.cloud"
    details = emu.get_tvc_deployment_provisioning_details(deployment_id=made["deploymentId"])
    assert details["provisioningState"] == PENDING  # the enclaves are booting
    assert "attestationDocument" not in details and "manifestEnvelope" not in details
    emu.clock.advance(emu.tvc.boot_seconds)
    details = emu.get_tvc_deployment_provisioning_details(deployment_id=made["deploymentId"])
    assert details["provisioningState"] == AWAITING
    # the attestation document: COSE_Sign1 ES384 by its leaf, binding the manifest
    protected, _, payload, signature = cbor2.loads(base64.b64decode(details["attestationDocument"]))
    document = cbor2.loads(payload)
    leaf = x509.load_der_x509_certificate(document["certificate"])
    der = encode_dss_signature(
        int.from_bytes(signature[:48], "big"), int.from_bytes(signature[48:], "big")
    )
    leaf.public_key().verify(
        der, cbor2.dumps(["Signature1", protected, b"", payload]), ec.ECDSA(hashes.SHA384())
    )
    assert document["user_data"] == digest
    assert [document["pcrs"][i].hex() for i in range(4)] == [
        data["enclave"][f"pcr{i}"] for i in range(4)
    ]
    envelope = json.loads(base64.b64decode(details["manifestEnvelope"]))
    assert envelope["manifest"] == data and len(envelope["manifestSetApprovals"]) == 2
    for approval in envelope["manifestSetApprovals"]:
        assert verify(approval["member"]["pubKey"][130:], digest, approval["signature"])
    # the share set posts shares re-encrypted to the enclave's Ephemeral Key
    ephemeral = document["public_key"]
    shares = shamir.split(quorum.seed, 3, 2)
    posted = []
    for i in (1, 2):
        bundle = {
            "operatorId": app["shareSetOperatorIds"][i],
            "reEncryptedShareHex": qos_encrypt(ephemeral[:65], shares[i]).hex(),
            "signature": ss[i].approve(digest),
        }
        if i == 1:
            bad = dict(bundle, signature=ss[0].approve(digest))
            assert (
                "does not verify"
                in fails(
                    emu,
                    emu.post_tvc_quorum_key_share,
                    deployment_id=made["deploymentId"],
                    ephemeral_public_key_hex=ephemeral.hex(),
                    share_approval_bundle=bad,
                ).message
            )
        posted.append(
            emu.post_tvc_quorum_key_share(
                deployment_id=made["deploymentId"],
                ephemeral_public_key_hex=ephemeral.hex(),
                share_approval_bundle=bundle,
            )["provisioningShareId"]
        )
    assert len(set(posted)) == 2
    current = status(emu, app["appId"], made["deploymentId"])
    assert (current["provisioningState"], current["readyReplicas"], current["desiredReplicas"]) == (
        PROVISIONED,
        0,
        3,
    )
    emu.clock.advance(emu.tvc.ready_seconds)
    assert status(emu, app["appId"], made["deploymentId"])["readyReplicas"] == 3
    emu.tvc.set_ready(made["deploymentId"], 1)
    assert status(emu, app["appId"], made["deploymentId"])["readyReplicas"] == 1
    app_status = emu.get_app_status(app_id=app["appId"])["appStatus"]
    assert app_status["targetedDeploymentId"] == made["deploymentId"]


def test_shares_that_do_not_rebuild_the_quorum_key_are_refused(emu):
    app, ms, ss, _quorum = new_app(emu, share=(2, 2))
    made = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    approve(emu, app, made, ms, [0, 1])
    emu.clock.advance(emu.tvc.boot_seconds)
    digest = from_json(manifest_of(emu, made["deploymentId"])["manifest"]).digest()
    details = emu.get_tvc_deployment_provisioning_details(deployment_id=made["deploymentId"])
    ephemeral = cbor2.loads(cbor2.loads(base64.b64decode(details["attestationDocument"]))[2])[
        "public_key"
    ]
    wrong = shamir.split(Operator().seed, 2, 2)

    def post(i, share):
        return emu.post_tvc_quorum_key_share(
            deployment_id=made["deploymentId"],
            ephemeral_public_key_hex=ephemeral.hex(),
            share_approval_bundle={
                "operatorId": app["shareSetOperatorIds"][i],
                "reEncryptedShareHex": qos_encrypt(ephemeral[:65], share).hex(),
                "signature": ss[i].approve(digest),
            },
        )

    post(0, wrong[0])
    error = fails(emu, post, 1, wrong[1])
    assert "do not rebuild the manifest's Quorum Key" in error.message
    assert status(emu, app["appId"], made["deploymentId"])["provisioningState"] == AWAITING


def test_hosted_operators_re_encrypt_their_shares(emu):
    hosted = [
        emu.create_tvc_operator(wallet_name=f"custodian{i}", path="m/0'", operator_name=f"c{i}")
        for i in range(5)
    ]
    key = emu.create_tvc_quorum_key(
        threshold=3, operator_encrypt_keys=[h["encryptPublicKey"] for h in hosted]
    )
    reviewer = Operator()
    app = emu.create_tvc_app(
        name="custody",
        quorum_public_key=key["quorumPublicKey"],
        manifest_set_params=operator_set("one", [reviewer], 1),
        share_set_params={
            "name": "custodians",
            "threshold": 3,
            "existingOperatorIds": [h["operatorId"] for h in hosted],
        },
    )
    made = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    approve(emu, app, made, [reviewer], [0])
    emu.clock.advance(emu.tvc.boot_seconds)
    details = emu.get_tvc_deployment_provisioning_details(deployment_id=made["deploymentId"])
    manifest_b64 = base64.b64encode(
        manifest_of(emu, made["deploymentId"])["manifest"].encode()
    ).decode()

    def re_encrypt(h, document=details["attestationDocument"]):
        return emu.re_encrypt_tvc_quorum_key_share(
            attestation_doc_b64=document,
            manifest_b64=manifest_b64,
            operator_encrypt_key=h["encryptPublicKey"],
            operator_sign_key=h["signPublicKey"],
            deployment_id=made["deploymentId"],
            app_quorum_key=key["quorumPublicKey"],
        )

    raw = base64.b64decode(details["attestationDocument"])
    forged = base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode()  # a signature bit flipped
    assert "attestation" in fails(emu, re_encrypt, hosted[0], forged).message
    for h in hosted[:3]:
        re_encrypt(h)
    assert status(emu, app["appId"], made["deploymentId"])["provisioningState"] == PROVISIONED
    org = next(iter(emu.world.store.organizations.values()))
    for share in org.tvc_provisioning_shares.values():
        operator = org.tvc_operators[share.operator_id]
        digest = bytes.fromhex(org.tvc_deployments[made["deploymentId"]].manifest_digest)
        assert verify(operator.public_key[130:], digest, share.signature)


def test_images_and_qos_versions_are_scriptable(emu):
    versions = emu.get_tvc_qos_versions()
    assert (versions["availableVersions"], versions["latestVersion"]) == ([QOS], QOS)
    pinned = emu.validate_tvc_image(pivot_container_image_url=IMAGE)
    assert pinned["resolvedImageDigest"] == "sha256:" + IMAGE.split("@sha256:")[1]
    tagged = emu.validate_tvc_image(pivot_container_image_url="ghcr.io/acme/app:v1")
    assert tagged["resolvedImageDigest"].startswith("sha256:")
    emu.tvc.unknown("ghcr.io/acme/app:v1")
    error = fails(emu, emu.validate_tvc_image, pivot_container_image_url="ghcr.io/acme/app:v1")
    assert error_of(error)[:2] == (400, 3) and "manifest unknown" in error.message
    assert (
        "not a valid container image"
        in fails(emu, emu.validate_tvc_image, pivot_container_image_url="UPPER CASE").message
    )
    app, *_ = new_app(emu)
    emu.tvc.set_digest(IMAGE, "ab" * 32)
    assert (
        "not the pinned digest"
        in fails(emu, emu.create_tvc_deployment, **deployment_params(app["appId"])).message
    )
    emu.tvc.images.clear()
    assert (
        "unsupported QOS version"
        in fails(
            emu, emu.create_tvc_deployment, **deployment_params(app["appId"], qos_version="v1")
        ).message
    )
    emu.tvc.qos_versions.append("v2026.9.1")
    assert emu.get_tvc_qos_versions()["latestVersion"] == "v2026.9.1"
    made = emu.create_tvc_deployment(**deployment_params(app["appId"], qos_version="v2026.9.1"))
    assert (
        emu.get_tvc_deployment(deployment_id=made["deploymentId"])["tvcDeployment"]["qosVersion"]
        == "v2026.9.1"
    )


def test_debug_mode_one_replica_zero_pcrs_and_logs(emu):
    plain, *_ = new_app(emu)
    assert (
        "enableDebugModeDeployments"
        in fails(
            emu, emu.create_tvc_deployment, **deployment_params(plain["appId"], debug_mode=True)
        ).message
    )
    app, ms, _, _ = new_app(emu, debug=True)
    made = emu.create_tvc_deployment(**deployment_params(app["appId"], debug_mode=True))
    deployment = emu.get_tvc_deployment(deployment_id=made["deploymentId"])["tvcDeployment"]
    assert deployment["debugMode"] is True
    assert json.loads(deployment["manifest"]["manifest"])["pivot"]["debugMode"] is True
    approve(emu, app, made, ms, [0, 1])
    emu.clock.advance(emu.tvc.boot_seconds)
    details = emu.get_tvc_deployment_provisioning_details(deployment_id=made["deploymentId"])
    document = cbor2.loads(cbor2.loads(base64.b64decode(details["attestationDocument"]))[2])
    assert all(document["pcrs"][i] == bytes(48) for i in range(4))
    assert status(emu, app["appId"], made["deploymentId"])["desiredReplicas"] == 1
    emu.tvc.log(made["deploymentId"], 1, emu.clock.now_ns(), "listening on 0.0.0.0:3000")
    entries = emu.get_tvc_deployment_debug_logs(deployment_id=made["deploymentId"])["entries"]
    assert entries[-1]["line"]["content"] == "listening on 0.0.0.0:3000"
    assert {e["replicaLabel"] for e in entries} == {"replica 1/1"}
    tail = emu.get_tvc_deployment_debug_logs(deployment_id=made["deploymentId"], tail_lines=1)
    assert [e["line"]["content"] for e in tail["entries"]] == ["listening on 0.0.0.0:3000"]
    other = emu.create_tvc_deployment(**deployment_params(plain["appId"]))
    assert (
        "not running in debug mode"
        in fails(
            emu, emu.get_tvc_deployment_debug_logs, deployment_id=other["deploymentId"]
        ).message
    )


def test_live_deployment_delete_and_restore(emu):
    app, ms, *_ = new_app(emu)
    first = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    second = emu.create_tvc_deployment(**deployment_params(app["appId"], nonce=2))
    assert (
        "approvals"
        in fails(
            emu, emu.update_tvc_app_live_deployment, deployment_id=second["deploymentId"]
        ).message
    )
    approve(emu, app, first, ms, [0, 1])
    approve(emu, app, second, ms, [1, 2])
    assert emu.get_tvc_apps(is_live=True)["tvcApps"][0]["liveDeploymentId"] == first["deploymentId"]
    assert emu.get_tvc_apps(is_live=False)["tvcApps"] == []
    assert (
        "live deployment"
        in fails(emu, emu.delete_tvc_deployment, deployment_id=first["deploymentId"]).message
    )
    emu.update_tvc_app_live_deployment(deployment_id=second["deploymentId"])
    emu.delete_tvc_deployment(deployment_id=first["deploymentId"])
    assert status(emu, app["appId"], first["deploymentId"])["desiredReplicas"] == 0
    assert (
        emu.get_tvc_deployment(deployment_id=first["deploymentId"])["tvcDeployment"]["delete"]
        is True
    )
    assert (
        "already marked"
        in fails(emu, emu.delete_tvc_deployment, deployment_id=first["deploymentId"]).message
    )
    emu.restore_tvc_deployment(deployment_id=first["deploymentId"])
    assert status(emu, app["appId"], first["deploymentId"])["desiredReplicas"] == 3
    emu.delete_tvc_app_and_deployments(app_id=app["appId"])
    listed = emu.get_tvc_app_deployments(app_id=app["appId"])["tvcDeployments"]
    assert [d["delete"] for d in listed] == [True, True]  # the records stay visible
    assert (
        "marked for deletion"
        in fails(emu, emu.create_tvc_deployment, **deployment_params(app["appId"])).message
    )
    assert emu.get_tvc_apps()["tvcApps"][0].get("liveDeploymentId") is None


def test_refusals_in_the_real_shapes(emu):
    error = fails(emu, emu.get_tvc_app, tvc_app_id="00000000-0000-4000-8000-000000000000")
    assert error_of(error)[:2] == (404, 5)
    assert (
        "exactly one of shareSetId and shareSetParams"
        in fails(
            emu,
            emu.create_tvc_app,
            name="x",
            quorum_public_key=Operator().public,
            manifest_set_params=operator_set("m", [Operator()], 1),
        ).message
    )
    assert (
        "between 2 and the number of operators"
        in fails(
            emu,
            emu.create_tvc_app,
            name="x",
            quorum_public_key=Operator().public,
            manifest_set_params=operator_set("m", [Operator()], 1),
            share_set_params=operator_set("s", [Operator(), Operator()], 1),
        ).message
    )
    assert (
        "130 bytes"
        in fails(
            emu,
            emu.create_tvc_app,
            name="x",
            quorum_public_key="04" * 65,
            manifest_set_params=operator_set("m", [Operator()], 1),
            share_set_params=operator_set("s", [Operator(), Operator()], 2),
        ).message
    )
    assert (
        "not the encryption key"
        in fails(
            emu,
            emu.create_tvc_quorum_key,
            threshold=1,
            operator_encrypt_keys=[Operator().public[:130]],
        ).message
    )


def test_operator_sets_are_reused(emu):
    ms = [Operator(), Operator()]
    params = operator_set("same", ms, 2)
    shares = operator_set("s", [Operator(), Operator()], 2)
    one = emu.create_tvc_app(
        name="a",
        quorum_public_key=Operator().public,
        manifest_set_params=params,
        share_set_params=shares,
    )
    two = emu.create_tvc_app(
        name="b",
        quorum_public_key=Operator().public,
        manifest_set_params=params,
        share_set_id=one["shareSetId"],
    )
    assert one["manifestSetId"] == two["manifestSetId"] and one["shareSetId"] == two["shareSetId"]


def test_state_file_and_journal_keep_tvc_records(tmp_path):
    emu, _journal = journaled(tmp_path, compact_every=10**9)
    emu.create_organization("Acme")
    app, ms, *_ = new_app(emu)
    hosted = emu.create_tvc_operator(wallet_name="w", path="m/1'", operator_name="hosted")
    emu.create_tvc_quorum_key(threshold=1, operator_encrypt_keys=[hosted["encryptPublicKey"]])
    made = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    approve(emu, app, made, ms, [0, 1])
    document = saved(tmp_path)
    assert document == emu.to_document()
    again = Emulator.from_document(document, exact_order=False)
    assert (
        again.get_tvc_app(tvc_app_id=app["appId"])["tvcApp"]
        == emu.get_tvc_app(tvc_app_id=app["appId"])["tvcApp"]
    )
    deployment_id = made["deploymentId"]
    assert (
        again.get_tvc_deployment(deployment_id=deployment_id)["tvcDeployment"]
        == emu.get_tvc_deployment(deployment_id=deployment_id)["tvcDeployment"]
    )
    assert (
        again.get_tvc_quorum_keys()["tvcQuorumKeys"] == emu.get_tvc_quorum_keys()["tvcQuorumKeys"]
    )
    emu.close()


def test_through_the_official_python_sdk(turnkey_client, turnkey_emulator):
    from turnkey_sdk_types.generated.types import (
        CreateTvcAppBody,
        GetTvcAppsBody,
        GetTvcQosVersionsBody,
        ValidateTvcImageBody,
    )

    versions = turnkey_client.get_tvc_qos_versions(GetTvcQosVersionsBody())
    assert versions.latestVersion == QOS
    made = turnkey_client.create_tvc_app(
        CreateTvcAppBody(
            name="sdk app",
            quorumPublicKey=Operator().public,
            manifestSetParams=operator_set("m", [Operator()], 1),
            shareSetParams=operator_set("s", [Operator(), Operator()], 2),
        )
    )
    assert made.activity.status == "ACTIVITY_STATUS_COMPLETED" and made.shareSetThreshold == 2
    apps = turnkey_client.get_tvc_apps(GetTvcAppsBody(isLive=False)).tvcApps
    assert [a.id for a in apps] == [made.appId]
    assert apps[0].shareSet.operators[0].keySource == "EXTERNAL_KEY"
    resolved = turnkey_client.validate_tvc_image(ValidateTvcImageBody(pivotContainerImageUrl=IMAGE))
    assert resolved.resolvedImageDigest.endswith(IMAGE[-64:])


def test_policies_consensus_and_webhooks():
    with Emulator(seed=5, settings=Settings(webhook_synchronous=True)) as emu:
        emu.create_organization()
        got = []
        emu.webhooks.route("https://hooks.example.com/tvc", lambda request: got.append(request))
        emu.create_webhook_endpoint(
            url="https://hooks.example.com/tvc",
            name="hooks",
            subscriptions=[{"eventType": "ACTIVITY_UPDATES"}],
        )
        _, alice = add_user(emu, "alice")
        app_params = {
            "name": "by alice",
            "quorum_public_key": Operator().public,
            "manifest_set_params": operator_set("m", [Operator()], 1),
            "share_set_params": operator_set("s", [Operator(), Operator()], 2),
        }
        denied = fails(emu, emu.create_tvc_app, caller=alice, **app_params)
        assert error_of(denied)[:2] == (403, 7)
        emu.create_policy(
            policy_name="alice builds apps",
            effect="EFFECT_ALLOW",
            notes="",
            condition="activity.type == 'ACTIVITY_TYPE_CREATE_TVC_APP'",
        )
        emu.create_policy(
            policy_name="deployments need two",
            effect="EFFECT_ALLOW",
            notes="",
            condition="activity.type == 'ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT'",
            consensus="approvers.count() >= 2",
        )
        app = emu.create_tvc_app(caller=alice, **app_params)
        assert app["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
        pending = emu.create_tvc_deployment(caller=alice, **deployment_params(app["appId"]))[
            "activity"
        ]
        assert pending["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED"
        assert emu.get_tvc_app_deployments(app_id=app["appId"])["tvcDeployments"] == []
        emu.approve_activity(fingerprint=pending["fingerprint"])
        done = emu.get_activity(activity_id=pending["id"])["activity"]
        assert done["status"] == "ACTIVITY_STATUS_COMPLETED"
        deployment_id = done["result"]["createTvcDeploymentResult"]["deploymentId"]
        (listed,) = emu.get_tvc_app_deployments(app_id=app["appId"])["tvcDeployments"]
        assert listed["id"] == deployment_id
        events = [r.json() for r in got]
        types = [e["type"] for e in events]
        assert (
            "ACTIVITY_TYPE_CREATE_TVC_APP" in types
            and "ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT" in types
        )
        assert events[-1]["status"] == "ACTIVITY_STATUS_COMPLETED"


def test_through_turnkey_http_and_the_official_attestation_checks():
    from emulator.crypto.api_keys import generate_key_pair
    from tests.typescript import TypeScriptError, client_calls, typescript_or_skip

    ts = typescript_or_skip()
    emu = Emulator(seed=27)
    emu.clock.freeze()
    root = generate_key_pair()
    org_id = emu.create_organization(
        api_public_key=root.public_key, api_private_key=root.private_key
    ).organization_id

    def submit(kind: str, parameters: dict) -> dict:
        return {
            "type": kind,
            "timestampMs": str(emu.clock.now_ms()),
            "organizationId": org_id,
            "parameters": parameters,
        }

    def calls(*pairs):
        return client_calls(ts, emu.world, root, list(pairs))

    first, second = calls(
        *(
            (
                "createTvcOperator",
                submit(
                    "ACTIVITY_TYPE_CREATE_TVC_OPERATOR",
                    {"walletName": f"custodian {i}", "path": "m/7'", "operatorName": f"c{i}"},
                ),
            )
            for i in range(2)
        )
    )
    hosted = [r["activity"]["result"]["createTvcOperatorResult"] for r in (first, second)]
    reviewer = Operator()
    (key,) = calls(
        (
            "createTvcQuorumKey",
            submit(
                "ACTIVITY_TYPE_CREATE_TVC_QUORUM_KEY",
                {"threshold": 2, "operatorEncryptKeys": [h["encryptPublicKey"] for h in hosted]},
            ),
        )
    )
    quorum_key = key["activity"]["result"]["createTvcQuorumKeyResult"]["quorumPublicKey"]
    app_params = {
        "name": "ts app",
        "quorumPublicKey": quorum_key,
        "manifestSetParams": operator_set("one", [reviewer], 1),
        "shareSetParams": {
            "name": "custodians",
            "threshold": 2,
            "existingOperatorIds": [h["operatorId"] for h in hosted],
        },
    }
    refused, app = calls(
        (
            "createTvcApp",
            submit("ACTIVITY_TYPE_CREATE_TVC_APP", {**app_params, "quorumPublicKey": "04"}),
        ),
        ("createTvcApp", submit("ACTIVITY_TYPE_CREATE_TVC_APP", app_params)),
    )
    assert isinstance(refused, TypeScriptError) and "130 bytes" in str(refused)
    app_id = app["activity"]["result"]["createTvcAppResult"]["appId"]
    wire = {k: v for k, v in deployment_params(app_id).items()}
    camel = {
        "".join(w.capitalize() if i else w for i, w in enumerate(k.split("_"))): v
        for k, v in wire.items()
    }
    (deployment,) = calls(
        ("createTvcDeployment", submit("ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT", camel))
    )
    made = deployment["activity"]["result"]["createTvcDeploymentResult"]
    (got,) = calls(
        ("getTvcDeployment", {"organizationId": org_id, "deploymentId": made["deploymentId"]})
    )
    digest = from_json(got["tvcDeployment"]["manifest"]["manifest"]).digest()
    operator_id = emu.get_tvc_app(tvc_app_id=app_id)["tvcApp"]["manifestSet"]["operators"][0]["id"]
    (approved,) = calls(
        (
            "createTvcManifestApprovals",
            submit(
                "ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS",
                {
                    "manifestId": made["manifestId"],
                    "approvals": [
                        {"operatorId": operator_id, "signature": reviewer.approve(digest)}
                    ],
                },
            ),
        )
    )
    assert approved["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED"
    emu.clock.advance(emu.tvc.boot_seconds)
    (details,) = calls(
        (
            "getTvcDeploymentProvisioningDetails",
            {"organizationId": org_id, "deploymentId": made["deploymentId"]},
        )
    )
    assert details["provisioningState"] == AWAITING
    (checked,) = ts.run(
        [
            {
                "op": "checkBootProofAttestation",
                "bootProof": {"awsAttestationDocB64": details["attestationDocument"]},
            }
        ]
    )
    assert checked["pcr17Matches"] is True and checked["digest"] == "SHA384"
    manifest_b64 = base64.b64encode(got["tvcDeployment"]["manifest"]["manifest"].encode()).decode()
    shares = calls(
        *(
            (
                "reEncryptTvcQuorumKeyShare",
                submit(
                    "ACTIVITY_TYPE_RE_ENCRYPT_TVC_QUORUM_KEY_SHARE",
                    {
                        "attestationDocB64": details["attestationDocument"],
                        "manifestB64": manifest_b64,
                        "operatorEncryptKey": h["encryptPublicKey"],
                        "operatorSignKey": h["signPublicKey"],
                        "deploymentId": made["deploymentId"],
                        "appQuorumKey": quorum_key,
                    },
                ),
            )
            for h in hosted
        ),
        ("getAppStatus", {"organizationId": org_id, "appId": app_id}),
    )
    assert all(s["activity"]["status"] == "ACTIVITY_STATUS_COMPLETED" for s in shares[:2])
    (deployment_status,) = shares[2]["appStatus"]["deployments"]
    assert deployment_status["provisioningState"] == PROVISIONED
    assert shares[2]["appStatus"]["targetedDeploymentId"] == made["deploymentId"]
    emu.close()


def test_the_dashboard_shows_apps_and_deployments():
    from .dashboard_world import build
    from .test_dashboard_http import served

    world = build()
    emu = world.emu
    emu.clock.freeze()
    app, ms, *_ = new_app(emu)
    made = emu.create_tvc_deployment(**deployment_params(app["appId"]))
    approve(emu, app, made, ms, [0, 1])
    with served(token="t", world=world) as site:
        page = site.ok("tvc", {"limit": 5})
        (shown,) = page["apps"]
        assert (shown["id"], shown["liveDeploymentId"], page["total"]) == (
            app["appId"],
            made["deploymentId"],
            1,
        )
        (deployment,) = shown["deployments"]
        assert deployment["provisioningState"] == PENDING and deployment["live"] is True
        assert (deployment["approvals"], deployment["approvalThreshold"]) == (2, 2)
        emu.clock.advance(emu.tvc.boot_seconds)
        again = site.ok("tvc")["apps"][0]["deployments"][0]
        assert again["provisioningState"] == AWAITING
        assert "share" not in json.dumps(page).replace("shareSet", "").replace(
            "shares", ""
        ).replace("shareThreshold", "")
        assert site.view("tvc", {"limit": -1}).status_code == 400


def test_the_control_plane_scripts_the_simulated_runtime():
    import requests

    from .dashboard_world import build
    from .test_dashboard_http import served

    world = build()
    emu = world.emu
    with served(token="t", world=world) as site:
        url = site.url + "/emulator/v1/tvc"
        got = requests.get(url, headers=site.headers(), timeout=10).json()
        assert (got["qosVersions"], got["bootSeconds"], got["readySeconds"]) == ([QOS], 20, 30)
        changed = requests.post(
            url,
            json={
                "qosVersions": [QOS, "v2026.9.1"],
                "bootSeconds": 0,
                "unknownImages": ["ghcr.io/acme/gone:v1"],
                "imageDigests": {"ghcr.io/acme/moved:v1": "sha256:" + "cd" * 32},
            },
            headers=site.headers(),
            timeout=10,
        ).json()
        assert changed["latestQosVersion"] == "v2026.9.1" and changed["bootSeconds"] == 0
        assert changed["images"] == {
            "ghcr.io/acme/gone:v1": None,
            "ghcr.io/acme/moved:v1": "sha256:" + "cd" * 32,
        }
        assert (
            emu.validate_tvc_image(pivot_container_image_url="ghcr.io/acme/moved:v1")[
                "resolvedImageDigest"
            ]
            == "sha256:" + "cd" * 32
        )
        refused = requests.post(
            url, json={"bootSeconds": -1, "qosVersions": ["x"]}, headers=site.headers(), timeout=10
        )
        assert refused.status_code == 400 and set(refused.json()) == {
            "code",
            "message",
            "details",
            "turnkeyErrorCode",
        }
        assert emu.tvc.qos_versions == [QOS, "v2026.9.1"]  # nothing changed
        assert (
            requests.post(url, json={"reset": True}, headers=site.headers(), timeout=10).json()[
                "images"
            ]
            == {}
        )
