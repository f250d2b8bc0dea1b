"""The pytest plugin of the Turnkey emulator (registered through ``pytest11``)."""
