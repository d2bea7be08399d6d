"""Learning the pair model from labelled data, and measuring detection against labels:
the labelled sets and how they are judged in memory (calibration), the fit (fitting), the
held-out figures (held_out), the scoring against labels (evaluation), and the oracle judge
that measures the LLM path. A run imports none of it to apply the model: only the
evaluate_detection and fit_pair_model commands, bench/ and the tests do."""
