# Step back over a store and over the mma.sp: memory and registers come back exactly.
b st.global
c
x/4dw %rd18
si
x/4dw %rd18
focus lane 5
x/1dw %rd18
rs
x/1dw %rd18
focus lane 0
delete
b mma.sp
rc
p %f103
display %f103
si
rsi
reverse-stepi
reverse-continue
reverse-step
list
q
