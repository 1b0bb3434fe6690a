# The operands of the second mma.sp (%r62 counts the remainder loop down: 2, then 1) of warp 0.
b mma.sp if %r62 == 1
c
frag A B C E
frag D
si
frag D
frag X
