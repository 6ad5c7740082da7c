"""Bridges from LEAP's sandbox and algorithms to other engines: a Ray executor and reward/environment
adapters for TRL, verifiers (prime-rl) and verl, plus a group-level reward hook.

Each module imports its engine lazily, so ``import leap.integrations`` needs none of them.
"""
