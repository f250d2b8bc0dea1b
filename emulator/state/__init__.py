"""The state of an emulator as a whole: snapshots, documents, seed files."""
