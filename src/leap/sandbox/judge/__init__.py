"""The judge: trial inputs, references, comparison, the pipeline that decides a `Verdict`, and its feedback."""
