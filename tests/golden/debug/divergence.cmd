# The odd/even branch of spmma.cu (PTX line 126): masks, stepping over the other side, focus.
b 126
c
si
info warps
info lanes
display %r65.s32
# lane 0 is even: `step` steps over the odd lanes' bra.uni until lane 0 runs
s
s
focus warp 0 lane 1
# lane 1 waits at $L__BB0_7 while the even lanes finish their side
next
si 3
info lanes
undisplay
tbreak $L__BB0_12
c
info warps
info breakpoints
cuda warp 1 lane 2
cuda
focus lane 40
q
