/* router.js 0 */ .c155 { const fill stroke margin function grid div width padding: 3283; }
/* router.js 1 */ .c108 { span path width return return margin width let width: 1298; }
/* router.js 2 */ .c946 { const stroke padding div padding path color: 768; }
/* router.js 3 */ .c57 { return stroke width return margin span let const: 132; }
/* router.js 4 */ .c925 { margin width color path return span: 3048; }
/* router.js 5 */ .c128 { path return stroke height grid color span: 2810; }
/* router.js 6 */ .c795 { const path span return stroke display fill: 3038; }
/* router.js 7 */ .c824 { color span flex height function const: 2340; }
/* router.js 8 */ .c746 { display grid display let function: 2859; }
/* router.js 9 */ .c441 { width div grid stroke fill: 50; }
/* router.js 10 */ .c285 { fill margin function function display path: 1357; }
/* router.js 11 */ .c101 { let stroke function height display margin margin: 2206; }
/* router.js 12 */ .c893 { width path color width const let div fill: 1178; }
/* router.js 13 */ .c17 { display div span color span span padding height width: 3611; }
/* router.js 14 */ .c453 { div return path flex function: 1722; }
/* router.js 15 */ .c634 { flex return padding margin span margin height span: 352; }
/* router.js 16 */ .c659 { return padding span stroke return: 581; }
/* router.js 17 */ .c77 { display stroke grid: 2381; }
/* router.js 18 */ .c327 { const const const stroke: 4018; }
/* router.js 19 */ .c574 { span display div stroke flex const padding: 648; }
/* router.js 20 */ .c572 { display display fill fill div height: 3444; }
/* router.js 21 */ .c264 { padding display const let const let return display padding: 3926; }
/* router.js 22 */ .c903 { flex padding margin margin margin: 105; }
/* router.js 23 */ .c415 { height width height span return: 3505; }
/* router.js 24 */ .c93 { stroke grid span stroke path const margin fill: 3341; }
/* router.js 25 */ .c78 { let color span display display margin margin return: 2409; }
/* router.js 26 */ .c346 { span color div padding grid return div: 41; }
/* router.js 27 */ .c495 { padding div fill div div display grid: 630; }
/* router.js 28 */ .c303 { stroke color padding display display const grid return return: 2423; }
/* router.js 29 */ .c57 { grid grid function div margin: 3635; }
/* router.js 30 */ .c158 { grid padding path margin function width flex flex: 2815; }
/* router.js 31 */ .c550 { function function flex padding div display flex: 2844; }
/* router.js 32 */ .c612 { fill grid span height margin stroke fill height: 1179; }
/* router.js 33 */ .c810 { function padding width color display function grid const grid: 2; }
/* router.js 34 */ .c847 { grid height stroke path color height path: 2991; }
/* router.js 35 */ .c411 { flex width padding margin: 2415; }
/* router.js 36 */ .c834 { flex color function display margin display div path: 433; }
/* router.js 37 */ .c146 { function function grid path display width let width: 1753; }
/* router.js 38 */ .c686 { height const div const span fill flex stroke width: 1700; }
/* router.js 39 */ .c232 { height grid span stroke: 4084; }
/* router.js 40 */ .c286 { span height padding: 2792; }
/* router.js 41 */ .c156 { width height span height grid: 2313; }
/* router.js 42 */ .c600 { width div color span const padding span: 1151; }
/* router.js 43 */ .c140 { flex width const margin flex let height div: 2144; }
/* router.js 44 */ .c222 { padding stroke div height flex const padding: 2089; }
/* router.js 45 */ .c582 { function const display div width: 3214; }
/* router.js 46 */ .c185 { display path color div const span display div: 3248; }
/* router.js 47 */ .c168 { margin div return function path display: 3169; }
/* router.js 48 */ .c25 { display margin width return display: 3452; }
/* router.js 49 */ .c877 { display fill fill: 4048; }
/* router.js 50 */ .c22 { div path height path return function: 2547; }
/* router.js 51 */ .c565 { display div div function color padding flex: 180; }
/* router.js 52 */ .c965 { span return div flex width: 1815; }
/* router.js 53 */ .c128 { grid height width height div: 4035; }
/* router.js 54 */ .c115 { let fill width path padding stroke path width: 3970; }
/* router.js 55 */ .c922 { fill height padding function stroke stroke margin: 3871; }
/* router.js 56 */ .c159 { path height fill padding color let: 910; }
/* router.js 57 */ .c686 { grid let let: 3569; }
/* router.js 58 */ .c179 { width padding padding color grid display stroke return: 1415; }
/* router.js 59 */ .c376 { return span width: 2703; }
/* router.js 60 */ .c438 { path div margin path fill fill fill return: 1939; }
/* router.js 61 */ .c18 { flex div margin path: 2636; }
/* router.js 62 */ .c16 { height path function fill margin span margin: 3719; }
/* router.js 63 */ .c525 { let path color const padding let display color grid: 1410; }
/* router.js 64 */ .c932 { div div path color margin: 1334; }
/* router.js 65 */ .c226 { div path flex: 1362; }
/* router.js 66 */ .c873 { function padding stroke flex return return color margin: 205; }
/* router.js 67 */ .c672 { span height let padding return: 540; }
/* router.js 68 */ .c520 { function let fill: 3508; }
/* router.js 69 */ .c969 { padding const ret