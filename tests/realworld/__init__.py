"""Functions written the way real projects write them, for tests/test_realworld.py."""
