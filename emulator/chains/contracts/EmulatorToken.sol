// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// An ERC-20 written straight into the state at a token's real address (as Anvil's setCode
/// does): no constructor runs, so name, symbol and decimals live in storage slots the emulator
/// writes beside the code. Balances are funded the same way (the emulator writes the balance
/// slot and the total supply), so there is no mint function and no owner.
contract EmulatorToken {
    string private _name; // slot 0
    string private _symbol; // slot 1
    uint8 private _decimals; // slot 2
    uint256 private _totalSupply; // slot 3
    mapping(address => uint256) private _balances; // slot 4
    mapping(address => mapping(address => uint256)) private _allowances; // slot 5

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function name() external view returns (string memory) {
        return _name;
    }

    function symbol() external view returns (string memory) {
        return _symbol;
    }

    function decimals() external view returns (uint8) {
        return _decimals;
    }

    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    function approve(address spender, uint256 value) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "ERC20: transfer amount exceeds allowance");
            _allowances[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 held = _balances[from];
        require(held >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = held - value;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }
}
