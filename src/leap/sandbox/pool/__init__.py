"""The pool: forkserver worker processes and what confines them (isolation, mounts, cgroups, GPU locks, IPC)."""
