// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

interface IERC20Like {
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// The simulated swap provider's settlement contract on one EVM chain. The provider (its
/// solver account, which deploys it) signs each order it quotes; the wallet sends `swap` with
/// that signature: the input is pulled from the wallet (native value or an ERC-20 it approved,
/// in the same batch) and, for a same-chain order, the output is paid from the contract's
/// liquidity in the same transaction. A cross-chain order only takes the input here; the
/// solver pays the output on the destination chain with `pay`, or refunds the input here.
contract EmulatorSwapRouter {
    struct Order {
        bytes32 quoteId;
        address tokenIn; // address(0): the native asset
        uint256 amountIn;
        address tokenOut; // address(0): the native asset
        uint256 amountOut;
        uint256 minOut;
        address recipient;
        uint256 destinationChainId;
    }

    address public immutable solver;
    mapping(bytes32 => bool) public used;

    event Swapped(
        bytes32 indexed quoteId,
        address indexed sender,
        address tokenIn,
        uint256 amountIn,
        address tokenOut,
        uint256 amountOut,
        address recipient,
        uint256 destinationChainId
    );
    event Paid(bytes32 indexed id, uint8 kind, address token, address indexed recipient, uint256 amount);

    error QuoteAlreadyExecuted(bytes32 quoteId);
    error InvalidQuoteSignature();
    error InsufficientOutputAmount(uint256 amountOut, uint256 minOut);
    error InvalidValue(uint256 expected, uint256 given);
    error NotSolver();
    error TransferFailed(address token);

    constructor() {
        solver = msg.sender;
    }

    receive() external payable {}

    function orderDigest(Order calldata order, address sender) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), sender, order));
    }

    function swap(Order calldata order, bytes calldata signature) external payable {
        if (used[order.quoteId]) revert QuoteAlreadyExecuted(order.quoteId);
        if (_recover(orderDigest(order, msg.sender), signature) != solver) {
            revert InvalidQuoteSignature();
        }
        if (order.amountOut < order.minOut) {
            revert InsufficientOutputAmount(order.amountOut, order.minOut);
        }
        used[order.quoteId] = true;
        if (order.tokenIn == address(0)) {
            if (msg.value != order.amountIn) revert InvalidValue(order.amountIn, msg.value);
        } else {
            if (msg.value != 0) revert InvalidValue(0, msg.value);
            if (!IERC20Like(order.tokenIn).transferFrom(msg.sender, address(this), order.amountIn)) {
                revert TransferFailed(order.tokenIn);
            }
        }
        if (order.destinationChainId == block.chainid) {
            _send(order.tokenOut, order.recipient, order.amountOut);
        }
        emit Swapped(
            order.quoteId,
            msg.sender,
            order.tokenIn,
            order.amountIn,
            order.tokenOut,
            order.amountOut,
            order.recipient,
            order.destinationChainId
        );
    }

    /// The solver's payouts: a cross-chain fill (kind 1), a refund (kind 2), a fee claim (3).
    function pay(bytes32 id, uint8 kind, address token, address recipient, uint256 amount) external {
        if (msg.sender != solver) revert NotSolver();
        _send(token, recipient, amount);
        emit Paid(id, kind, token, recipient, amount);
    }

    function _send(address token, address recipient, uint256 amount) private {
        if (token == address(0)) {
            (bool ok,) = recipient.call{value: amount}("");
            if (!ok) revert TransferFailed(address(0));
        } else if (!IERC20Like(token).transfer(recipient, amount)) {
            revert TransferFailed(token);
        }
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(digest, v, r, s);
    }
}
