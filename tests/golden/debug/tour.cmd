# A first session: stop at the sparse mma, look at it, step over it.
help
help break
break mma.sp
info breakpoints
run
info warps
print %r5
p %r1.f16x2
p %r1.bf16x2
p %r1.e4m3x4
p %r1.s8x4
p %r1.u32
p $r5 + 1
p %nope
frag E
stepi
frag D
p %f104
p %f103.f32
display %f103
step

list
cycle
tmem
quit
