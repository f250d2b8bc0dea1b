// SPDX-License-Identifier: MIT
// The emulator's Earn contracts: a yield vault (a Morpho vault or an Aave reserve stand-in),
// the fee wrapper users deposit into, its fee splitter, the CREATE2 factory that deploys the
// pair, a token for the underlying and reward assets, and a Merkl-style rewards distributor.
// The ERC-20 and ERC-4626 bases are OpenZeppelin Contracts 5.7.0 (audited, from npm).
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

/// An ERC-20 placed at a token's real address (its code copied there, then `initialize`d):
/// name, symbol and decimals live in storage, and its minter (the emulator) mints.
contract EarnToken is IERC20 {
    string public name;
    string public symbol;
    uint8 public decimals;
    address public minter;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function initialize(string calldata name_, string calldata symbol_, uint8 decimals_, address minter_)
        external
    {
        require(minter == address(0), "initialized");
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        minter = minter_;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "not the minter");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "ERC20: insufficient allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) internal {
        require(balanceOf[from] >= amount, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/// The underlying yield vault: a plain ERC-4626 whose assets grow as yield is paid into it
/// (the emulator mints the interest of its `apyPct` into it on its clock).
contract EarnVault is ERC4626 {
    constructor(IERC20 asset_, string memory name_, string memory symbol_)
        ERC4626(asset_)
        ERC20(name_, symbol_)
    {}
}

/// The fee wrapper: an ERC-4626 over the vault's asset that holds the vault's shares. As
/// yield accrues, `feeBps` of it (the client's and Turnkey's fees) is minted as wrapper shares
/// to the splitter, so fees come out of yield only; views already count the pending fee.
contract FeeWrapper is ERC4626 {
    using SafeERC20 for IERC20;

    ERC4626 public immutable vault;
    address public immutable feeRecipient;
    uint256 public immutable feeBps;
    uint256 public lastTotalAssets;

    constructor(ERC4626 vault_, address feeRecipient_, uint256 feeBps_)
        ERC4626(IERC20(vault_.asset()))
        ERC20("Turnkey Earn Wrapper", "tkEARN")
    {
        require(feeBps_ <= 5000, "fee above cap");
        vault = vault_;
        feeRecipient = feeRecipient_;
        feeBps = feeBps_;
    }

    function totalAssets() public view override returns (uint256) {
        return vault.previewRedeem(vault.balanceOf(address(this)));
    }

    /// (fee shares not yet minted, total assets now)
    function pendingFee() public view returns (uint256 feeShares, uint256 assetsNow) {
        assetsNow = totalAssets();
        if (assetsNow <= lastTotalAssets || feeBps == 0) return (0, assetsNow);
        uint256 feeAssets = Math.mulDiv(assetsNow - lastTotalAssets, feeBps, 10_000);
        feeShares = Math.mulDiv(feeAssets, totalSupply() + 1, assetsNow - feeAssets + 1);
    }

    function accrueFee() public {
        (uint256 feeShares, uint256 assetsNow) = pendingFee();
        if (feeShares > 0) _mint(feeRecipient, feeShares);
        lastTotalAssets = assetsNow;
    }

    function _convertToShares(uint256 assets, Math.Rounding rounding) internal view override returns (uint256) {
        (uint256 feeShares, uint256 assetsNow) = pendingFee();
        return Math.mulDiv(assets, totalSupply() + feeShares + 1, assetsNow + 1, rounding);
    }

    function _convertToAssets(uint256 shares, Math.Rounding rounding) internal view override returns (uint256) {
        (uint256 feeShares, uint256 assetsNow) = pendingFee();
        return Math.mulDiv(shares, assetsNow + 1, totalSupply() + feeShares + 1, rounding);
    }

    function deposit(uint256 assets, address receiver) public override returns (uint256) {
        accrueFee();
        return super.deposit(assets, receiver);
    }

    function mint(uint256 shares, address receiver) public override returns (uint256) {
        accrueFee();
        return super.mint(shares, receiver);
    }

    function withdraw(uint256 assets, address receiver, address owner) public override returns (uint256) {
        accrueFee();
        return super.withdraw(assets, receiver, owner);
    }

    function redeem(uint256 shares, address receiver, address owner) public override returns (uint256) {
        accrueFee();
        return super.redeem(shares, receiver, owner);
    }

    function _deposit(address caller, address receiver, uint256 assets, uint256 shares) internal override {
        super._deposit(caller, receiver, assets, shares);
        IERC20(asset()).forceApprove(address(vault), assets);
        vault.deposit(assets, address(this));
        lastTotalAssets = totalAssets();
    }

    function _withdraw(address caller, address receiver, address owner, uint256 assets, uint256 shares)
        internal
        override
    {
        vault.withdraw(assets, address(this), address(this));
        super._withdraw(caller, receiver, owner, assets, shares);
        lastTotalAssets = totalAssets();
    }
}

/// The fee splitter: holds the wrapper's fee shares and splits them between the client's
/// fee wallet and Turnkey's in proportion to their fees (a PaymentSplitter). `claim` releases
/// the caller's due shares and redeems them, so the payout arrives as the underlying asset.
contract FeeSplitter {
    address public immutable factory;
    address public immutable client;
    address public immutable turnkey;
    uint256 public immutable clientBps;
    uint256 public immutable turnkeyBps;
    FeeWrapper public wrapper;
    uint256 public totalReleased;
    mapping(address => uint256) public released;

    event FeesClaimed(address indexed payee, uint256 shares, uint256 assets);

    constructor(address client_, uint256 clientBps_, address turnkey_, uint256 turnkeyBps_) {
        factory = msg.sender;
        client = client_;
        clientBps = clientBps_;
        turnkey = turnkey_;
        turnkeyBps = turnkeyBps_;
    }

    function setWrapper(FeeWrapper wrapper_) external {
        require(msg.sender == factory && address(wrapper) == address(0), "not the factory");
        wrapper = wrapper_;
    }

    function _share(address payee) internal view returns (uint256) {
        if (payee == client) return clientBps;
        if (payee == turnkey) return turnkeyBps;
        return 0;
    }

    /// The payee's due wrapper shares, counting fees the wrapper has not minted yet.
    function releasableShares(address payee) public view returns (uint256) {
        (uint256 pending,) = wrapper.pendingFee();
        uint256 received = wrapper.balanceOf(address(this)) + pending + totalReleased;
        uint256 total = clientBps + turnkeyBps;
        if (total == 0) return 0;
        return received * _share(payee) / total - released[payee];
    }

    function releasableAssets(address payee) external view returns (uint256) {
        return wrapper.previewRedeem(releasableShares(payee));
    }

    function claim() external returns (uint256 assets) {
        require(_share(msg.sender) > 0, "not a payee");
        wrapper.accrueFee();
        uint256 shares = releasableShares(msg.sender);
        require(shares > 0, "nothing to claim");
        released[msg.sender] += shares;
        totalReleased += shares;
        assets = wrapper.redeem(shares, msg.sender, address(this));
        emit FeesClaimed(msg.sender, shares, assets);
    }
}

/// Deploys a wrapper and its splitter at CREATE2 addresses bound to the vault and the fee
/// configuration, so the same parameters always give the same addresses.
contract EarnFactory {
    address public immutable turnkey;
    uint256 public immutable turnkeyBps;

    event WrapperDeployed(address indexed vault, address wrapper, address splitter, uint256 clientBps, address client);

    constructor(address turnkey_, uint256 turnkeyBps_) {
        turnkey = turnkey_;
        turnkeyBps = turnkeyBps_;
    }

    function salt(address vault, uint256 clientBps, address client) public pure returns (bytes32) {
        return keccak256(abi.encode(vault, clientBps, client));
    }

    function deploy(ERC4626 vault, uint256 clientBps, address client)
        external
        returns (FeeWrapper wrapper, FeeSplitter splitter)
    {
        require(clientBps <= 4000, "client fee above cap");
        bytes32 s = salt(address(vault), clientBps, client);
        splitter = new FeeSplitter{salt: s}(client, clientBps, turnkey, turnkeyBps);
        wrapper = new FeeWrapper{salt: s}(vault, address(splitter), clientBps + turnkeyBps);
        splitter.setWrapper(wrapper);
        emit WrapperDeployed(address(vault), address(wrapper), address(splitter), clientBps, client);
    }
}

/// A Merkl-style distributor: its owner publishes a Merkle root of cumulative amounts per
/// (user, token); a user claims the difference from what it already claimed, with a proof.
/// Only the earner may claim for itself, as on Merkl (`NotWhitelisted`).
contract RewardsDistributor {
    using SafeERC20 for IERC20;

    error NotWhitelisted();
    error InvalidProof();

    address public owner;
    bytes32 public root;
    mapping(address => mapping(address => uint256)) public claimed;

    event Claimed(address indexed user, address indexed token, uint256 amount);

    function initialize(address owner_) external {
        require(owner == address(0), "initialized");
        owner = owner_;
    }

    function updateRoot(bytes32 root_) external {
        require(msg.sender == owner, "not the owner");
        root = root_;
    }

    function claim(
        address[] calldata users,
        address[] calldata tokens,
        uint256[] calldata amounts,
        bytes32[][] calldata proofs
    ) external {
        for (uint256 i = 0; i < users.length; i++) {
            if (users[i] != msg.sender) revert NotWhitelisted();
            bytes32 leaf = keccak256(abi.encode(users[i], tokens[i], amounts[i]));
            if (!MerkleProof.verify(proofs[i], root, leaf)) revert InvalidProof();
            uint256 due = amounts[i] - claimed[users[i]][tokens[i]];
            claimed[users[i]][tokens[i]] = amounts[i];
            if (due > 0) {
                IERC20(tokens[i]).safeTransfer(users[i], due);
                emit Claimed(users[i], tokens[i], due);
            }
        }
    }
}
