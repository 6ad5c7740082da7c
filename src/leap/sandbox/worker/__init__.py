"""The worker: code that runs inside a candidate's child process (harness, run-time detectors, timing)."""
