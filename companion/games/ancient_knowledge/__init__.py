"""Ancient Knowledge (IELLO): card catalog, formula evaluator, tracker engine and final scoring.

- ``catalog``: the card data of ``assets/ancient-knowledge/``, validated on load.
- ``formula``: end-game formulas and technology requirements (recursive descent, no eval).
- ``engine``: the tracker (the contract of ``companion.games.base``).
- ``score``: final scoring, ``score_table`` / ``format_score`` for ``companion score``.
"""
