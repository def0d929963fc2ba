"""The depth-limited engine for boards up to 26x26; entry points in :mod:`.limited_entry`."""
