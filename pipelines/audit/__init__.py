"""prm-audit: label quality from a human review sample; verdicts back into the data."""
