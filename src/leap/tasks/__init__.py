"""Tasks: KernelBench-format problems, the built-in suite and the procedural generator."""

from leap.tasks.task import Task, TaskError, load_kernelbench, load_task_dir, load_task_file, parse_task

__all__ = ["Task", "TaskError", "load_kernelbench", "load_task_dir", "load_task_file", "parse_task"]
