"""Game-independent compiled-code machinery: the random generator every kernel uses, array
views without reference counts for hot loops, the code generator that specialises templates per
game, and the compiled-code cache."""
