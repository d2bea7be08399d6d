"""Detection: what a namespace's memories are to one another, read from their text.

Candidate pairs (detect), the readers of a text (keytokens, quantities, lexical,
alignment, reading), the judgement of a pair (judgement), clusters without chaining
(clustering), the guards that stop an automatic merge (guards), the one representative
rule (representative), and the scoring against labelled data (evaluation). Pure
functions over anything shaped like a Memory: no database access here.
"""
