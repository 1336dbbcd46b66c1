"""A fifth game that exists only in the tests, to prove what docs/adding-a-game.md says: one package
and one ``register`` line. "Later": players take turns laying a dated card; each must be later than the
card before it, or its player is out; the last player in wins."""
