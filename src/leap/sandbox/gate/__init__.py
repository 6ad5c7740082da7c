"""The static gate: reads a candidate's source (AST, data-path kinds, backend) and rejects it before anything runs."""
