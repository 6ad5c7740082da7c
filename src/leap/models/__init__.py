"""Models LEAP builds or stages offline: tiny random models for tests/demos, the real Qwen2.5-Coder-0.5B."""
