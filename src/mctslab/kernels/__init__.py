"""Game-independent compiled-code machinery: the random generator every kernel uses, the
code generator that specialises templates per game, and the compiled-code cache."""
