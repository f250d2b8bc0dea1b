// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// The emulator's gas station delegate. An account delegates to it (EIP-7702) and then runs a
/// batch of calls as itself: sent by the account itself (`execute`), or by the gas station's
/// sponsor, who pays the gas, with the account's EIP-712 signature over the batch, its nonce
/// and deadline (`executeSponsored`). The nonce lives in a namespaced storage slot of the
/// account, so it never collides with other storage. A failing call reverts the whole batch
/// with the call's own revert data.
///
/// Compiled with solc 0.8.30 (solcjs, optimizer on, 200 runs, EVM version prague) into
/// GasStationDelegate.json beside this file: see emulator/chains/gas_station/__init__.py.
contract GasStationDelegate {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    bytes32 private constant DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address to,uint256 value,bytes data)");
    bytes32 private constant BATCH_TYPEHASH = keccak256(
        "BatchExecution(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)"
    );
    bytes32 private constant NONCE_SLOT = keccak256("turnkey-emulator.gas-station.nonce");

    error Unauthorized();
    error Expired(uint256 deadline);
    error InvalidNonce(uint256 expected, uint256 given);
    error InvalidSignature();

    receive() external payable {}

    function nonce() public view returns (uint256 value) {
        bytes32 slot = NONCE_SLOT;
        assembly {
            value := sload(slot)
        }
    }

    function execute(Call[] calldata calls) external payable {
        if (msg.sender != address(this)) revert Unauthorized();
        _run(calls);
    }

    function executeSponsored(
        Call[] calldata calls,
        uint256 batchNonce,
        uint256 deadline,
        bytes calldata signature
    ) external {
        if (deadline != 0 && block.timestamp > deadline) revert Expired(deadline);
        uint256 expected = nonce();
        if (batchNonce != expected) revert InvalidNonce(expected, batchNonce);
        bytes32 digest = keccak256(
            abi.encodePacked("\x19\x01", _domainSeparator(), _batchHash(calls, batchNonce, deadline))
        );
        if (_recover(digest, signature) != address(this)) revert InvalidSignature();
        bytes32 slot = NONCE_SLOT;
        assembly {
            sstore(slot, add(expected, 1))
        }
        _run(calls);
    }

    function _run(Call[] calldata calls) private {
        for (uint256 i = 0; i < calls.length; ++i) {
            (bool ok, bytes memory returned) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) {
                assembly {
                    revert(add(returned, 32), mload(returned))
                }
            }
        }
    }

    function _domainSeparator() private view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH,
                keccak256("EmulatorGasStation"),
                keccak256("1"),
                block.chainid,
                address(this)
            )
        );
    }

    function _batchHash(Call[] calldata calls, uint256 batchNonce, uint256 deadline)
        private
        pure
        returns (bytes32)
    {
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            hashes[i] = keccak256(
                abi.encode(CALL_TYPEHASH, calls[i].to, calls[i].value, keccak256(calls[i].data))
            );
        }
        return keccak256(
            abi.encode(BATCH_TYPEHASH, keccak256(abi.encodePacked(hashes)), batchNonce, deadline)
        );
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) {
            return address(0);
        }
        return ecrecover(digest, v, r, s);
    }
}
