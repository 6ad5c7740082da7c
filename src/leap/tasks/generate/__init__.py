"""Procedural task generator: operator grammar, rendering, deduplication, template solutions."""

from leap.tasks.generate.generator import GeneratedTask, GenerateStats, generate_tasks, write_generated

__all__ = ["GenerateStats", "GeneratedTask", "generate_tasks", "write_generated"]
