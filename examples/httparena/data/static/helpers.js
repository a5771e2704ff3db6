/* helpers.js 0 */ .c649 { const grid let display: 617; }
/* helpers.js 1 */ .c127 { return flex let margin grid path path padding: 430; }
/* helpers.js 2 */ .c162 { stroke path let return: 3855; }
/* helpers.js 3 */ .c826 { return function height fill: 3772; }
/* helpers.js 4 */ .c598 { let grid height grid padding grid grid: 77; }
/* helpers.js 5 */ .c333 { function color padding span width color return: 1511; }
/* helpers.js 6 */ .c342 { const color width return grid const padding height: 2021; }
/* helpers.js 7 */ .c37 { stroke function color flex padding display: 2344; }
/* helpers.js 8 */ .c216 { padding flex let span span return: 2101; }
/* helpers.js 9 */ .c371 { color div function div: 303; }
/* helpers.js 10 */ .c661 { const color path: 3751; }
/* helpers.js 11 */ .c977 { margin stroke path path: 2854; }
/* helpers.js 12 */ .c965 { span width margin function display padding path fill: 3061; }
/* helpers.js 13 */ .c842 { path color let const display let margin fill padding: 3750; }
/* helpers.js 14 */ .c806 { path const width: 2098; }
/* helpers.js 15 */ .c394 { margin const return grid div return function div padding: 2375; }
/* helpers.js 16 */ .c16 { stroke margin fill: 895; }
/* helpers.js 17 */ .c778 { color return margin path stroke grid display const const: 3415; }
/* helpers.js 18 */ .c617 { span span display return const flex grid: 2267; }
/* helpers.js 19 */ .c676 { div fill function fill span: 1867; }
/* helpers.js 20 */ .c648 { stroke return function: 84; }
/* helpers.js 21 */ .c915 { height div const span let span const span div: 2195; }
/* helpers.js 22 */ .c333 { display path const stroke const const: 3924; }
/* helpers.js 23 */ .c72 { margin padding let grid height path: 2405; }
/* helpers.js 24 */ .c225 { grid div div path width grid function: 2018; }
/* helpers.js 25 */ .c660 { span padding let stroke height span: 42; }
/* helpers.js 26 */ .c400 { width width margin padding: 3568; }
/* helpers.js 27 */ .c64 { flex const fill span fill stroke path fill: 4089; }
/* helpers.js 28 */ .c749 { height const color flex: 3478; }
/* helpers.js 29 */ .c262 { span return color path span span grid color return: 2026; }
/* helpers.js 30 */ .c965 { display display const fill width padding div return: 614; }
/* helpers.js 31 */ .c759 { display div color width return span: 1630; }
/* helpers.js 32 */ .c736 { let color stroke flex margin flex function let flex: 2327; }
/* helpers.js 33 */ .c797 { stroke return margin fill: 606; }
/* helpers.js 34 */ .c588 { div stroke stroke stroke return fill function path display: 3270; }
/* helpers.js 35 */ .c498 { path flex flex span span span path width: 1686; }
/* helpers.js 36 */ .c257 { const grid const flex margin color width div: 2546; }
/* helpers.js 37 */ .c992 { const grid function: 1953; }
/* helpers.js 38 */ .c329 { let height fill: 2921; }
/* helpers.js 39 */ .c656 { height stroke height return: 2562; }
/* helpers.js 40 */ .c996 { div grid grid path: 2308; }
/* helpers.js 41 */ .c970 { margin padding fill: 3006; }
/* helpers.js 42 */ .c259 { padding height stroke stroke height let path path div: 3989; }
/* helpers.js 43 */ .c66 { margin grid div: 2948; }
/* helpers.js 44 */ .c891 { padding path div: 1768; }
/* helpers.js 45 */ .c4 { fill return let div: 1842; }
/* helpers.js 46 */ .c415 { function path let width: 3994; }
/* helpers.js 47 */ .c610 { stroke function margin stroke stroke stroke height fill const: 2999; }
/* helpers.js 48 */ .c765 { fill color color stroke span height margin const: 908; }
/* helpers.js 49 */ .c93 { padding stroke display div flex: 2993; }
/* helpers.js 50 */ .c359 { display div grid return: 1920; }
/* helpers.js 51 */ .c266 { return height path padding margin: 2294; }
/* helpers.js 52 */ .c935 { flex width fill function flex padding: 2817; }
/* helpers.js 53 */ .c580 { span function const fill path color: 3020; }
/* helpers.js 54 */ .c913 { stroke let width: 3016; }
/* helpers.js 55 */ .c905 { div path span color: 3647; }
/* helpers.js 56 */ .c680 { function grid return color div: 18; }
/* helpers.js 57 */ .c572 { grid const grid: 408; }
/* helpers.js 58 */ .c16 { grid grid div width stroke flex: 3185; }
/* helpers.js 59 */ .c521 { path display grid display: 2131; }
/* helpers.js 60 */ .c521 { grid div flex stroke display: 100; }
/* 