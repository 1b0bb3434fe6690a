# Shared, param and global memory at the barrier; registers; the end of the kernel.
b bar
c
x/4w &_ZZ10spmma_loopE4smem
x/4fw &_ZZ10spmma_loopE4smem
x/8xh shared:0
x/2xg &spmma_loop_param_0
x/4xw 0x7f0000000000
x/8xb global:0x7f0000000000
x/4dw &spmma_loop_param_4
x/2uw %rd9
x/1w 0x10
x/4q &_ZZ10spmma_loopE4smem
info registers %r5 %f104 %rd1 %p1 %tid.x
set color on
display %r65
set color off
delete
c
c
cycle
q
