/* analytics.js 0 */ .c748 { span function flex div path flex color height stroke: 726; }
/* analytics.js 1 */ .c507 { div flex div flex flex return: 1986; }
/* analytics.js 2 */ .c701 { div padding color padding margin fill: 2716; }
/* analytics.js 3 */ .c798 { return span grid display const: 285; }
/* analytics.js 4 */ .c164 { span fill function const: 1716; }
/* analytics.js 5 */ .c629 { height color color return stroke grid: 2308; }
/* analytics.js 6 */ .c918 { div color div let return const color: 2309; }
/* analytics.js 7 */ .c946 { grid grid margin: 3574; }
/* analytics.js 8 */ .c438 { span stroke grid: 1769; }
/* analytics.js 9 */ .c380 { span color display function: 2749; }
/* analytics.js 10 */ .c950 { height let grid: 3936; }
/* analytics.js 11 */ .c29 { padding stroke fill display margin margin padding margin: 1762; }
/* analytics.js 12 */ .c930 { const stroke padding padding return: 2443; }
/* analytics.js 13 */ .c544 { color const const span: 1760; }
/* analytics.js 14 */ .c69 { grid flex div color stroke width margin width: 106; }
/* analytics.js 15 */ .c111 { div span span fill grid flex: 3791; }
/* analytics.js 16 */ .c681 { div color display path margin height stroke margin: 1104; }
/* analytics.js 17 */ .c62 { function let padding width width: 1223; }
/* analytics.js 18 */ .c596 { margin width fill padding return flex path height margin: 2520; }
/* analytics.js 19 */ .c893 { margin return height: 3154; }
/* analytics.js 20 */ .c739 { span margin const fill const: 3707; }
/* analytics.js 21 */ .c968 { padding grid function padding flex path flex: 394; }
/* analytics.js 22 */ .c61 { width grid flex width function color: 887; }
/* analytics.js 23 */ .c752 { stroke display color div stroke color width: 3067; }
/* analytics.js 24 */ .c29 { let width color let height: 1444; }
/* analytics.js 25 */ .c302 { flex path display flex: 809; }
/* analytics.js 26 */ .c101 { return color span flex stroke: 2645; }
/* analytics.js 27 */ .c613 { display stroke fill display height flex stroke: 3870; }
/* analytics.js 28 */ .c99 { path stroke width path path: 3080; }
/* analytics.js 29 */ .c890 { margin display color width fill: 244; }
/* analytics.js 30 */ .c40 { path height div: 220; }
/* analytics.js 31 */ .c79 { margin stroke height color stroke let fill: 1675; }
/* analytics.js 32 */ .c656 { div width fill path margin height: 836; }
/* analytics.js 33 */ .c506 { path grid function const: 1127; }
/* analytics.js 34 */ .c38 { flex color width margin let: 799; }
/* analytics.js 35 */ .c301 { width color fill function span: 2652; }
/* analytics.js 36 */ .c258 { color height const flex color: 991; }
/* analytics.js 37 */ .c754 { padding grid height stroke: 943; }
/* analytics.js 38 */ .c707 { return color fill fill color padding div: 102; }
/* analytics.js 39 */ .c600 { div color grid span return padding fill color div: 1755; }
/* analytics.js 40 */ .c229 { return width let function height height height width: 1327; }
/* analytics.js 41 */ .c755 { display return stroke grid path color margin flex: 467; }
/* analytics.js 42 */ .c743 { padding width stroke: 198; }
/* analytics.js 43 */ .c862 { function let function path width flex: 719; }
/* analytics.js 44 */ .c157 { path fill const return height: 565; }
/* analytics.js 45 */ .c359 { let const flex span function grid return span: 1305; }
/* analytics.js 46 */ .c616 { flex flex const let return display padding div: 3091; }
/* analytics.js 47 */ .c339 { span display stroke stroke: 2396; }
/* analytics.js 48 */ .c169 { height margin height display grid: 165; }
/* analytics.js 49 */ .c537 { margin return const fill let color flex path height: 73; }
/* analytics.js 50 */ .c822 { const display const color div const div: 1877; }
/* analytics.js 51 */ .c204 { span path div padding stroke: 898; }
/* analytics.js 52 */ .c243 { grid path path const div div: 4061; }
/* analytics.js 53 */ .c56 { path margin stroke span width div: 3626; }
/* analytics.js 54 */ .c237 { width width let padding height stroke: 766; }
/* analytics.js 55 */ .c866 { let color stroke const function color let path: 55; }
/* analytics.js 56 */ .c816 { width margin let function: 2126; }
/* analytics.js 57 */ .c982 { path padding padding: 1607; }
/* analytics.js 58 */ .c727 { width const path div let width height function: 2159; }
/* analytics.js 59 */ .c612 { color path path width return return fill: 3661; }
/* analytics.js 60 */ .c706 { path padding margin: 1555; }
/* analytics.js 61 */ .c43 { span const flex padding width const padding color div: 2093; }
/* analytics.js 62 */ .c587 { const fill height display: 1471; }
/* analytics.js 63 */ .c767 { padding grid margin padding const: 1434; }
/* analytics.js 64 */ .c594 { grid color path margin margin: 2728; }
/* analytics.js 65 */ .c955 { height margin const display width stroke display color function: 150; }
/* analytics.js 66 */ .c578 { fill let const color div flex let let const: 912; }
/* analytics.js 67 */ .c777 { function const const: 1927; }
/* analytics.js 68 */ .c76 { const width div path width flex span: 3814; }
/* analytics.js 69 */ .c708 { width padding margin div width: 86; }
/* analytics.js 70 */ .c237 { grid padding path flex: 432; }
/* analytics.js 71 */ .c737 { span flex flex function function: 1255; }
/* analytics.js 72 */ .c450 { grid width padding fill: 246; }
/* analytics.js 73 */ .c499 { div fill let: 423; }
/* analytics.js 74 */ .c69 { stroke div fill margin color function span return: 1186; }
/* analytics.js 75 */ .c144 { div path let height div span width: 1716; }
/* analytics.js 76 */ .c84 { const flex display color margin margin: 3720; }
/* analytics.js 77 */ .c77 { display color span height color color fill: 3785; }
/* analytics.js 78 */ .c413 { margin width span: 1178; }
/* analytics.js 79 */ .c798 { span grid return path div const height: 816; }
/* analytics.js 80 */ .c54 { stroke const stroke grid function: 1339; }
/* analytics.js 81 */ .c644 { width const padding path: 2823; }
/* analytics.js 82 */ .c858 { height fill return const display margin: 1275; }
/* analytics.js 83 */ .c355 { width const width function path flex height display flex: 1381; }
/* analytics.js 84 */ .c790 { fill let fill function: 2009; }
/* analytics.js 85 */ .c329 { fill padding padding const span path: 3357; }
/* analytics.js 86 */ .c357 { stroke path color grid fill: 2997; }
/* analytics.js 87 */ .c762 { span height fill padding span flex div padding const: 2934; }
/* analytics.js 88 */ .c377 { let width color fill: 3041; }
/* analytics.js 89 */ .c811 { color color span: 3850; }
/* analytics.js 90 */ .c316 { stroke const flex div margin fill return stroke: 3442; }
/* analytics.js 91 */ .c798 { display const stroke flex padding: 38; }
/* analytics.js 92 */ .c851 { return return padding width div const const: 911; }
/* analytics.js 93 */ .c136 { let function flex: 3036; }
/* analytics.js 94 */ .c474 { fill div padding height let display: 1823; }
/* analytics.js 95 */ .c293 { const height let width: 2297; }
/* analytics.js 96 */ .c538 { function color color: 1363; }
/* analytics.js 97 */ .c175 { let path pa