"""The rules of ``TurnkeyStateMachine`` for private keys and their tags (mixed into it: see
``state_machine.py``, which holds the rest of the machine and its invariants)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, multiple, precondition, rule

from . import strategies as ts
from .machine_model import Json, KeyModel, PrivateKeyRef
from .machine_rules import MachinePart
from .signature_checks import check_address

# the machine's bundles, by name (``TurnkeyStateMachine`` declares the same ones)
private_keys = Bundle("private_keys")
tags = Bundle("private_key_tags")


class KeyRules(MachinePart):
    """Rules that create, tag, retag and delete private keys, checked against the model."""

    @rule(target=private_keys, data=st.data())
    def create_private_keys(self, data: st.DataObject):
        tag_ids = self._some(data, "tags", "privateKeyTags")
        specs = data.draw(
            st.lists(
                ts.private_key_params(tags=st.just(tag_ids)),
                min_size=1,
                max_size=self.max_keys_per_request,
            ),
            label="privateKeys",
        )
        names = [s["privateKeyName"] for s in specs]
        taken = {k.name for k in self.model.private_keys.values()}
        ok = (
            len(set(names)) == len(names)
            and not taken & set(names)
            and all(t in self.model.tags for t in tag_ids)
            and len(self.model.private_keys) + len(specs)
            <= self._max("max_private_keys_per_organization")
        )
        result = self.submit(ok, "create_private_keys", {"privateKeys": specs})
        if result is None:
            return multiple()
        made = []
        for spec, entry in zip(specs, result["privateKeys"], strict=True):
            key_id = entry["privateKeyId"]
            addresses = {a["format"]: a["address"] for a in entry["addresses"]}
            assert list(addresses) == spec["addressFormats"], (spec, entry)
            public_key = self.emu.get_private_key(private_key_id=key_id)["privateKey"]["publicKey"]
            for address_format, address in addresses.items():
                check_address(address_format, spec["curve"], public_key, address)
            self.model.private_keys[key_id] = KeyModel(
                spec["privateKeyName"], spec["curve"], public_key, addresses, set(tag_ids)
            )
            made.append(PrivateKeyRef(key_id, spec["curve"]))
        return self._made("private_keys", *made)

    @precondition(lambda self: self.created["private_keys"])
    @rule(keys=st.lists(private_keys, min_size=1, max_size=2))
    def delete_private_keys(self, keys: list[PrivateKeyRef]) -> None:
        key_ids = [k.private_key_id for k in keys]
        ok = all(k in self.model.private_keys for k in key_ids)
        params = {"privateKeyIds": key_ids, "deleteWithoutExport": True}
        if self.submit(ok, "delete_private_keys", params) is not None:
            for key_id in key_ids:
                self.model.private_keys.pop(key_id, None)

    def _tag_count(self) -> int:
        org = self.emu.world.store.organizations[self.org.organization_id]
        return len(org.user_tags) + len(self.model.tags)

    @rule(target=tags, name=ts.tag_names(), data=st.data())
    def create_private_key_tag(self, name: str, data: st.DataObject):
        keys = self._some(data, "private_keys", "privateKeyIds")
        key_ids = [k.private_key_id for k in keys]
        ok = (
            name not in self.model.tags.values()
            and all(k in self.model.private_keys for k in key_ids)
            and self._tag_count() < self._max("max_tags_per_organization")
        )
        params = {"privateKeyTagName": name, "privateKeyIds": key_ids}
        result = self.submit(ok, "create_private_key_tag", params)
        if result is None:
            return multiple()
        tag_id = result["privateKeyTagId"]
        self.model.tags[tag_id] = name
        for key_id in key_ids:
            self.model.private_keys[key_id].tags.add(tag_id)
        return self._made("tags", tag_id)

    @rule(
        tag_id=tags,
        new_name=st.none() | ts.tag_names(),
        data=st.data(),
    )
    def update_private_key_tag(self, tag_id: str, new_name: str | None, data: st.DataObject):
        add = self._some(data, "private_keys", "addPrivateKeyIds")
        remove = self._some(data, "private_keys", "removePrivateKeyIds")
        add_ids = [k.private_key_id for k in add]
        remove_ids = [k.private_key_id for k in remove]
        others = {n for t, n in self.model.tags.items() if t != tag_id}
        ok = (
            tag_id in self.model.tags
            and new_name not in others
            and all(k in self.model.private_keys for k in add_ids + remove_ids)
        )
        params: Json = {
            "privateKeyTagId": tag_id,
            "addPrivateKeyIds": add_ids,
            "removePrivateKeyIds": remove_ids,
        }
        if new_name is not None:
            params["newPrivateKeyTagName"] = new_name
        if self.submit(ok, "update_private_key_tag", params) is None:
            return
        if new_name is not None:
            self.model.tags[tag_id] = new_name
        for key_id in add_ids:
            self.model.private_keys[key_id].tags.add(tag_id)
        for key_id in remove_ids:
            self.model.private_keys[key_id].tags.discard(tag_id)

    @precondition(lambda self: self.created["tags"])
    @rule(tag_ids=st.lists(tags, min_size=1, max_size=2))
    def delete_private_key_tags(self, tag_ids: list[str]) -> None:
        ok = all(t in self.model.tags for t in tag_ids)
        if self.submit(ok, "delete_private_key_tags", {"privateKeyTagIds": tag_ids}) is None:
            return
        for tag_id in tag_ids:
            self.model.tags.pop(tag_id, None)
        for key in self.model.private_keys.values():
            key.tags.difference_update(tag_ids)
