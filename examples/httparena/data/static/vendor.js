/* vendor.js 0 */ .c232 { color width flex function color div span: 784; }
/* vendor.js 1 */ .c925 { width color function: 457; }
/* vendor.js 2 */ .c944 { flex function div let div span function color let: 3096; }
/* vendor.js 3 */ .c672 { const span display stroke margin stroke: 2541; }
/* vendor.js 4 */ .c269 { path function height: 1688; }
/* vendor.js 5 */ .c798 { stroke return stroke margin fill let: 2298; }
/* vendor.js 6 */ .c878 { padding padding const fill function return stroke span div: 3340; }
/* vendor.js 7 */ .c6 { height margin function color function: 582; }
/* vendor.js 8 */ .c280 { color width flex let: 3256; }
/* vendor.js 9 */ .c103 { div flex display flex grid span display: 2023; }
/* vendor.js 10 */ .c128 { div padding const return span grid display: 956; }
/* vendor.js 11 */ .c405 { grid const width function: 2924; }
/* vendor.js 12 */ .c182 { height flex div margin const const function height: 744; }
/* vendor.js 13 */ .c239 { width flex margin grid path let function padding flex: 2414; }
/* vendor.js 14 */ .c161 { div margin width: 1570; }
/* vendor.js 15 */ .c831 { color fill grid stroke stroke grid span flex: 361; }
/* vendor.js 16 */ .c87 { padding grid span path display div div span: 393; }
/* vendor.js 17 */ .c155 { grid width function function display: 2810; }
/* vendor.js 18 */ .c255 { return stroke fill display: 2080; }
/* vendor.js 19 */ .c346 { path return margin return fill fill: 371; }
/* vendor.js 20 */ .c398 { margin margin function: 903; }
/* vendor.js 21 */ .c630 { const fill display height width: 1115; }
/* vendor.js 22 */ .c766 { const padding flex span span flex width let: 2813; }
/* vendor.js 23 */ .c254 { margin stroke margin color margin padding padding function: 1381; }
/* vendor.js 24 */ .c731 { padding fill padding height let div const margin: 3193; }
/* vendor.js 25 */ .c601 { path flex height padding height fill span: 171; }
/* vendor.js 26 */ .c857 { span stroke margin grid: 3110; }
/* vendor.js 27 */ .c313 { width path flex div margin const flex: 256; }
/* vendor.js 28 */ .c794 { grid margin stroke display color path: 3845; }
/* vendor.js 29 */ .c893 { let return div color path let grid return: 2786; }
/* vendor.js 30 */ .c390 { width let flex: 3582; }
/* vendor.js 31 */ .c341 { return return stroke return: 3072; }
/* vendor.js 32 */ .c178 { stroke width const display grid span margin: 1681; }
/* vendor.js 33 */ .c981 { padding flex return padding stroke div height: 2416; }
/* vendor.js 34 */ .c661 { margin const span div: 4073; }
/* vendor.js 35 */ .c747 { span flex height padding flex fill fill: 199; }
/* vendor.js 36 */ .c119 { path display stroke fill: 1686; }
/* vendor.js 37 */ .c919 { display function flex color padding grid return flex: 1572; }
/* vendor.js 38 */ .c377 { let const let fill function color path div margin: 3233; }
/* vendor.js 39 */ .c803 { padding return color: 1428; }
/* vendor.js 40 */ .c725 { function let height grid height span grid stroke stroke: 2869; }
/* vendor.js 41 */ .c744 { width return function color div width margin stroke path: 1244; }
/* vendor.js 42 */ .c82 { div color margin height height fill: 1686; }
/* vendor.js 43 */ .c111 { padding flex grid: 2024; }
/* vendor.js 44 */ .c59 { fill function padding function: 1505; }
/* vendor.js 45 */ .c76 { span div height color width div grid padding height: 3001; }
/* vendor.js 46 */ .c211 { let width let stroke const display grid: 3959; }
/* vendor.js 47 */ .c738 { function let padding height flex color span let grid: 1785; }
/* vendor.js 48 */ .c352 { function path fill: 3665; }
/* vendor.js 49 */ .c271 { grid path const stroke padding let: 2123; }
/* vendor.js 50 */ .c238 { const path stroke: 1892; }
/* vendor.js 51 */ .c122 { grid div padding margin width: 1243; }
/* vendor.js 52 */ .c784 { padding height function let: 52; }
/* vendor.js 53 */ .c130 { margin const path flex span fill height: 1742; }
/* vendor.js 54 */ .c791 { flex stroke stroke: 632; }
/* vendor.js 55 */ .c499 { margin height const flex padding margin color: 3963; }
/* vendor.js 56 */ .c576 { width let fill let margin: 3310; }
/* vendor.js 57 */ .c358 { width function return height div: 1437; }
/* vendor.js 58 */ .c323 { margin display path span function stroke path return: 1939; }
/* vendor.js 59 */ .c20 { fill color flex color flex stroke color grid: 2698; }
/* vendor.js 60 */ .c575 { margin let display const: 484; }
/* vendor.js 61 */ .c687 { div function margin div: 3926; }
/* vendor.js 62 */ .c579 { span display span function height: 1452; }
/* vendor.js 63 */ .c925 { padding return display let flex: 4031; }
/* vendor.js 64 */ .c845 { width span const fill const return color return stroke: 1693; }
/* vendor.js 65 */ .c201 { const span return: 1170; }
/* vendor.js 66 */ .c722 { margin function display margin: 2897; }
/* vendor.js 67 */ .c196 { margin margin display function color flex fill: 2382; }
/* vendor.js 68 */ .c476 { height let padding fill fill color: 2280; }
/* vendor.js 69 */ .c268 { grid margin function display stroke const fill path: 801; }
/* vendor.js 70 */ .c191 { color div display margin: 628; }
/* vendor.js 71 */ .c81 { flex let span flex: 2565; }
/* vendor.js 72 */ .c524 { const const span: 120; }
/* vendor.js 73 */ .c482 { let function width grid padding path: 3852; }
/* vendor.js 74 */ .c690 { const flex height: 2282; }
/* vendor.js 75 */ .c650 { grid color width return flex grid: 2713; }
/* vendor.js 76 */ .c661 { let fill fill fill: 1382; }
/* vendor.js 77 */ .c650 { stroke return margin path margin const color grid stroke: 1735; }
/* vendor.js 78 */ .c525 { let stroke color height const function color color: 601; }
/* vendor.js 79 */ .c797 { height path function: 206; }
/* vendor.js 80 */ .c576 { let height function fill: 625; }
/* vendor.js 81 */ .c458 { padding height span fill flex: 2843; }
/* vendor.js 82 */ .c289 { span fill display padding div color: 1792; }
/* vendor.js 83 */ .c161 { grid grid margin height stroke margin const fill: 4069; }
/* vendor.js 84 */ .c218 { flex function path: 3713; }
/* vendor.js 85 */ .c882 { fill path fill: 2345; }
/* vendor.js 86 */ .c241 { stroke path flex span padding width: 3030; }
/* vendor.js 87 */ .c408 { flex path path flex: 3331; }
/* vendor.js 88 */ .c44 { color padding display fill: 3054; }
/* vendor.js 89 */ .c790 { color display grid height grid grid: 1245; }
/* vendor.js 90 */ .c485 { stroke width stroke span function padding: 3119; }
/* vendor.js 91 */ .c111 { path path height flex display width let padding stroke: 2277; }
/* vendor.js 92 */ .c882 { color margin width padding const width margin: 4037; }
/* vendor.js 93 */ .c174 { width let stroke height span: 2569; }
/* vendor.js 94 */ .c216 { div path let padding margin let width height let: 3245; }
/* vendor.js 95 */ .c697 { div fill grid: 1187; }
/* vendor.js 96 */ .c467 { span display padding fill: 3704; }
/* vendor.js 97 */ .c570 { fill display margin margin return const flex div span: 2909; }
/* vendor.js 98 */ .c270 { let display span grid height padding display stroke height: 2874; }
/* vendor.js 99 */ .c326 { const color return grid stroke stroke margin: 3134; }
/* vendor.js 100 */ .c774 { display stroke fill fill height padding: 1585; }
/* vendor.js 101 */ .c976 { grid path padding fill padding grid fill width: 2300; }
/* vendor.js 102 */ .c571 { padding stroke padding path display display: 3500; }
/* vendor.js 103 */ .c238 { grid flex let let function: 36; }
/* vendor.js 104 */ .c321 { fill let display span: 1140; }
/* vendor.js 105 */ .c143 { flex padding display stroke height path const width: 189; }
/* vendor.js 106 */ .c267 { color margin div path div path span path height: 1328; }
/* vendor.js 107 */ .c617 { path let let span return padding: 3083; }
/* vendor.js 108 */ .c756 { function display grid height height return span: 2258; }
/* vendor.js 109 */ .c353 { span flex span padding margin const: 3080; }
/* vendor.js 110 */ .c937 { grid width padding: 2453; }
/* vendor.js 111 */ .c352 { flex function path span function span width: 3375; }
/* vendor.js 112 */ .c411 { const const return margin: 680; }
/* vendor.js 113 */ .c468 { const margin function grid: 2052; }
/* vendor.js 114 */ .c262 { display grid return function color display let fill return: 1908; }
/* vendor.js 115 */ .c54 { display margin return grid: 1808; }
/* vendor.js 116 */ .c288 { flex return width display: 3665; }
/* vendor.js 117 */ .c107 { stroke stroke stroke grid div let grid: 1122; }
/* vendor.js 118 */ .c673 { let height return fill: 3113; }
/* vendor.js 119 */ .c770 { fill color width padding: 661; }
/* vendor.js 120 */ .c924 { fill flex let padding const padding: 288; }
/* vendor.js 121 */ .c373 { color path div return width height return: 3799; }
/* vendor.js 122 */ .c978 { const color grid flex fill: 2648; }
/* vendor.js 123 */ .c398 { flex width color: 2190; }
/* vendor.js 124 */ .c787 { path margin fill width width: 2897; }
/* vendor.js 125 */ .c883 { const width height let: 973; }
/* vendor.js 126 */ .c388 { width function display flex: 2595; }
/* vendor.js 127 */ .c568 { display div padding: 1662; }
/* vendor.js 128 */ .c101 { display fill const flex div stroke width: 3580; }
/* vendor.js 129 */ .c912 { div display const path color span color: 422; }
/* vendor.js 130 */ .c448 { display color return const function margin: 1833; }
/* vendor.js 131 */ .c963 { span width path padding return: 1480; }
/* vendor.js 132 */ .c6 { display let fill path return: 1580; }
/* vendor.js 133 */ .c55 { color flex margin stroke let display let: 1807; }
/* vendor.js 134 */ .c789 { margin display flex display height return height: 904; }
/* vendor.js 135 */ .c87 { span function height color display function: 28; }
/* vendor.js 136 */ .c953 { display path padding stroke stroke width padding padding: 1219; }
/* vendor.js 137 */ .c643 { margin flex path color display function path stroke: 364; }
/* vendor.js 138 */ .c504 { width margin grid return let grid margin path: 244; }
/* vendor.js 139 */ .c380 { return stroke color span padding flex width span grid: 2936; }
/* vendor.js 140 */ .c155 { const display color div stroke: 2132; }
/* vendor.js 141 */ .c462 { width flex function: 1573; }
/* vendor.js 142 */ .c833 { display margin const span color span width: 3667; }
/* vendor.js 143 */ .c844 { grid div width path const flex: 374; }
/* vendor.js 144 */ .c101 { span fill display function div margin span margin: 1310; }
/* vendor.js 145 */ .c434 { padding grid fill grid: 2985; }
/* vendor.js 146 */ .c41 { let color function padding div path span: 480; }
/* vendor.js 147 */ .c619 { margin div fill flex color width margin div: 832; }
/* vendor.js 148 */ .c317 { div grid color padding color: 4059; }
/* vendor.js 149 */ .c936 { stroke grid width padding span span div div padding: 835; }
/* vendor.js 150 */ .c493 { path fill width stroke const const flex padding padding: 2056; }
/* vendor.js 151 */ .c562 { return height display path height div flex: 1890; }
/* vendor.js 152 */ .c746 { let span fill margin padding function: 987; }
/* vendor.js 153 */ .c381 { height grid div padding flex: 2653; }
/* vendor.js 154 */ .c2 { width function function color width let color: 1710; }
/* vendor.js 155 */ .c184 { color grid function width flex width function grid: 210; }
/* vendor.js 156 */ .c380 { padding width color: 1794; }
/* vendor.js 157 */ .c93 { const margin function return width padding flex: 2626; }
/* vendor.js 158 */ .c731 { width return fill const margin grid: 1550; }
/* vendor.js 159 */ .c290 { function margin span stroke: 2418; }
/* vendor.js 160 */ .c854 { span grid width div stroke span margin color: 326; }
/* vendor.js 161 */ .c163 { flex fill grid fill div let color: 3972; }
/* vendor.js 162 */ .c592 { fill padding color grid span flex path fill let: 2768; }
/* vendor.js 163 */ .c134 { color path function width fill return return path return: 569; }
/* vendor.js 164 */ .c534 { span fill width const let return height: 2933; }
/* vendor.js 165 */ .c436 { const padding grid: 1316; }
/* vendor.js 166 */ .c638 { width stroke flex stroke color return div: 1554; }
/* vendor.js 167 */ .c797 { let width return: 70; }
/* vendor.js 168 */ .c922 { div let const color width: 2846; }
/* vendor.js 169 */ .c580 { return stroke color width fill fill display fill padding: 1036; }
/* vendor.js 170 */ .c408 { width flex let let span fill fill let: 4081; }
/* vendor.js 171 */ .c149 { grid function span path padding let: 2474; }
/* vendor.js 172 */ .c523 { color padding path display function: 1501; }
/* vendor.js 173 */ .c503 { path padding stroke color stroke height: 414; }
/* vendor.js 174 */ .c448 { width flex display path display: 3040; }
/* vendor.js 175 */ .c751 { return fill div display path span height display height: 435; }
/* vendor.js 176 */ .c863 { fill display padding color: 1727; }
/* vendor.js 177 */ .c541 { flex path const const fill stroke: 2707; }
/* vendor.js 178 */ .c292 { span padding stroke padding: 3779; }
/* vendor.js 179 */ .c512 { const div function let margin div span: 2666; }
/* vendor.js 180 */ .c488 { return div const let div path: 1320; }
/* vendor.js 181 */ .c779 { width fill div width: 2632; }
/* vendor.js 182 */ .c714 { grid stroke fill: 478; }
/* vendor.js 183 */ .c186 { grid span fill function return margin fill: 1482; }
/* vendor.js 184 */ .c666 { width const grid color: 4044; }
/* vendor.js 185 */ .c193 { margin padding width grid: 3526; }
/* vendor.js 186 */ .c255 { stroke grid function path: 1071; }
/* vendor.js 187 */ .c673 { grid flex width function width height width grid stroke: 529; }
/* vendor.js 188 */ .c738 { grid div margin display fill path margin height span: 2514; }
/* vendor.js 189 */ .c374 { div padding color return grid stroke margin return stroke: 585; }
/* vendor.js 190 */ .c633 { span margin return: 2917; }
/* vendor.js 191 */ .c312 { stroke height path: 3887; }
/* vendor.js 192 */ .c727 { grid span const padding color path: 3117; }
/* vendor.js 193 */ .c851 { flex span path grid height margin: 3816; }
/* vendor.js 194 */ .c54 { flex fill function padding path fill let: 3475; }
/* vendor.js 195 */ .c696 { function margin function height color: 412; }
/* vendor.js 196 */ .c301 { span margin display fill: 1918; }
/* vendor.js 197 */ .c329 { return stroke flex: 2718; }
/* vendor.js 198 */ .c757 { height height color padding let return let: 1521; }
/* vendor.js 199 */ .c533 { function height span const const margin span margin div: 3410; }
/* vendor.js 200 */ .c397 { path function display span: 1864; }
/* vendor.js 201 */ .c13 { display const height return color const: 173; }
/* vendor.js 202 */ .c336 { padding display span width fill const width: 1436; }
/* vendor.js 203 */ .c142 { const span div display: 4010; }
/* vendor.js 204 */ .c973 { display const span: 1617; }
/* vendor.js 205 */ .c312 { return margin height grid const: 3380; }
/* vendor.js 206 */ .c594 { color padding div const return: 3867; }
/* vendor.js 207 */ .c88 { color padding height stroke path path padding function: 845; }
/* vendor.js 208 */ .c638 { height path let fill width: 3815; }
/* vendor.js 209 */ .c240 { div path margin return padding width width span let: 1594; }
/* vendor.js 210 */ .c154 { color fill margin: 1764; }
/* vendor.js 211 */ .c188 { width height fill color let return height stroke: 3247; }
/* vendor.js 212 */ .c819 { fill padding width display: 1781; }
/* vendor.js 213 */ .c788 { height path return const: 1485; }
/* vendor.js 214 */ .c953 { function height stroke function height div: 1985; }
/* vendor.js 215 */ .c54 { fill display path padding: 1262; }
/* vendor.js 216 */ .c956 { path const function let: 2427; }
/* vendor.js 217 */ .c422 { stroke const let color height display path height: 2489; }
/* vendor.js 218 */ .c304 { stroke grid fill path stroke let height stroke: 1873; }
/* vendor.js 219 */ .c866 { fill color function: 513; }
/* vendor.js 220 */ .c948 { stroke fill width let fill width flex: 3647; }
/* vendor.js 221 */ .c192 { fill let color div function fill width function stroke: 1326; }
/* vendor.js 222 */ .c2 { height margin width function path height: 2430; }
/* vendor.js 223 */ .c982 { path flex let margin color let padding padding let: 2618; }
/* vendor.js 224 */ .c614 { path const div margin fill div height span div: 2020; }
/* vendor.js 225 */ .c501 { div height grid display padding span: 2584; }
/* vendor.js 226 */ .c725 { color display span grid: 1054; }
/* vendor.js 227 */ .c509 { width flex grid: 425; }
/* vendor.js 228 */ .c886 { return let flex grid: 629; }
/* vendor.js 229 */ .c15 { return height height: 1445; }
/* vendor.js 230 */ .c301 { fill flex let: 2306; }
/* vendor.js 231 */ .c565 { width color stroke: 2936; }
/* vendor.js 232 */ .c624 { grid span grid height path fill fill stroke grid: 2974; }
/* vendor.js 233 */ .c812 { grid color function const path height: 1223; }
/* vendor.js 234 */ .c613 { let color flex margin return color color: 1993; }
/* vendor.js 235 */ .c373 { stroke width color height flex return const: 2652; }
/* vendor.js 236 */ .c546 { path path div width grid let path display fill: 1369; }
/* vendor.js 237 */ .c573 { function height return path stroke color height: 3754; }
/* vendor.js 238 */ .c348 { return width color path: 2485; }
/* vendor.js 239 */ .c851 { display width padding function grid function div height: 3280; }
/* vendor.js 240 */ .c300 { const margin path flex stroke width flex: 2892; }
/* vendor.js 241 */ .c295 { path height span: 3953; }
/* vendor.js 242 */ .c898 { color grid return stroke grid fill height: 2021; }
/* vendor.js 243 */ .c56 { grid fill span: 1108; }
/* vendor.js 244 */ .c386 { color path height const fill path path color const: 3481; }
/* vendor.js 245 */ .c969 { div grid return width div fill color margin: 861; }
/* vendor.js 246 */ .c780 { path fill margin const: 505; }
/* vendor.js 247 */ .c364 { const width flex fill flex const div span height: 2481; }
/* vendor.js 248 */ .c927 { width span grid grid stroke margin: 3067; }
/* vendor.js 249 */ .c130 { const padding function flex path: 2574; }
/* vendor.js 250 */ .c365 { margin stroke grid height grid color span color color: 1417; }
/* vendor.js 251 */ .c846 { stroke width span flex padding fill let path: 1642; }
/* vendor.js 252 */ .c470 { function return display height stroke width padding: 2192; }
/* vendor.js 253 */ .c42 { display margin fill fill path padding: 1813; }
/* vendor.js 254 */ .c671 { flex width div function return: 1199; }
/* vendor.js 255 */ .c841 { height stroke display width margin stroke fill fill height: 3864; }
/* vendor.js 256 */ .c27 { width fill padding margin path display: 397; }
/* vendor.js 257 */ .c470 { height flex margin height: 1642; }
/* vendor.js 258 */ .c285 { function stroke margin width: 2929; }
/* vendor.js 259 */ .c737 { flex fill margin height fill fill path: 911; }
/* vendor.js 260 */ .c465 { function stroke height flex height: 2346; }
/* vendor.js 261 */ .c831 { fill function flex fill: 3983; }
/* vendor.js 262 */ .c924 { color span let: 3360; }
/* vendor.js 263 */ .c532 { height let path let display stroke: 463; }
/* vendor.js 264 */ .c420 { fill const path function const margin span stroke: 2439; }
/* vendor.js 265 */ .c351 { div span color let width color margin fill return: 826; }
/* vendor.js 266 */ .c968 { span div return span flex margin function stroke path: 4081; }
/* vendor.js 267 */ .c126 { div function function: 2325; }
/* vendor.js 268 */ .c439 { div div function height const: 3850; }
/* vendor.js 269 */ .c514 { display const height color path div grid const: 1886; }
/* vendor.js 270 */ .c601 { grid display margin flex stroke width color margin: 3724; }
/* vendor.js 271 */ .c227 { width flex margin function grid: 3801; }
/* vendor.js 272 */ .c883 { return display let color padding path grid: 1040; }
/* vendor.js 273 */ .c897 { fill let fill display display: 3870; }
/* vendor.js 274 */ .c292 { padding height fill height span grid height path flex: 2818; }
/* vendor.js 275 */ .c422 { padding color const margin fill function path: 3382; }
/* vendor.js 276 */ .c26 { path fill span flex fill span: 1117; }
/* vendor.js 277 */ .c656 { grid function color span: 69; }
/* vendor.js 278 */ .c848 { fill path div function display display const path: 2183; }
/* vendor.js 279 */ .c279 { const grid display padding display: 3106; }
/* vendor.js 280 */ .c792 { const flex margin margin path display: 2354; }
/* vendor.js 281 */ .c335 { span color grid div: 2605; }
/* vendor.js 282 */ .c22 { color let height function: 1871; }
/* vendor.js 283 */ .c472 { height width span: 2751; }
/* vendor.js 284 */ .c112 { padding flex path fill grid: 2361; }
/* vendor.js 285 */ .c809 { path span function: 3242; }
/* vendor.js 286 */ .c930 { fill margin margin display width: 2500; }
/* vendor.js 287 */ .c616 { div let return width span: 2698; }
/* vendor.js 288 */ .c184 { display display display padding: 3489; }
/* vendor.js 289 */ .c381 { fill width path color flex path return: 578; }
/* vendor.js 290 */ .c438 { margin let height const function flex: 2583; }
/* vendor.js 291 */ .c611 { color const grid margin function stroke function: 807; }
/* vendor.js 292 */ .c112 { padding color fill margin function: 1845; }
/* vendor.js 293 */ .c70 { const let width color span const height let fill: 1683; }
/* vendor.js 294 */ .c999 { return function fill color function: 1931; }
/* vendor.js 295 */ .c595 { div path display path height: 1090; }
/* vendor.js 296 */ .c161 { span let flex return path div color: 1012; }
/* vendor.js 297 */ .c342 { flex color function: 2104; }
/* vendor.js 298 */ .c111 { width color path margin path margin stroke flex: 2494; }
/* vendor.js 299 */ .c844 { function return color const grid let width: 1578; }
/* vendor.js 300 */ .c781 { color width width: 3432; }
/* vendor.js 301 */ .c755 { color fill flex padding function div fill function const: 762; }
/* vendor.js 302 */ .c107 { span color div margin span grid: 288; }
/* vendor.js 303 */ .c26 { display function flex display: 3360; }
/* vendor.js 304 */ .c371 { grid div height span stroke: 3439; }
/* vendor.js 305 */ .c743 { span const stroke stroke return padding: 3203; }
/* vendor.js 306 */ .c129 { color width flex div: 127; }
/* vendor.js 307 */ .c630 { let stroke height stroke: 773; }
/* vendor.js 308 */ .c867 { const function stroke function padding function return padding: 902; }
/* vendor.js 309 */ .c854 { width height fill: 1504; }
/* vendor.js 310 */ .c341 { flex function fill return return: 1895; }
/* vendor.js 311 */ .c881 { height div return flex color const height: 3028; }
/* vendor.js 312 */ .c184 { function margin width margin margin span: 2820; }
/* vendor.js 313 */ .c648 { let const function: 3337; }
/* vendor.js 314 */ .c549 { height display margin: 742; }
/* vendor.js 315 */ .c536 { height const color grid span: 1830; }
/* vendor.js 316 */ .c66 { width stroke color flex padding let path return margin: 350; }
/* vendor.js 317 */ .c273 { color let width: 318; }
/* vendor.js 318 */ .c152 { flex flex stroke color display div padding: 857; }
/* vendor.js 319 */ .c760 { return stroke let display const return: 1725; }
/* vendor.js 320 */ .c416 { margin span color grid width function: 2646; }
/* vendor.js 321 */ .c910 { function width div fill height color display const: 1267; }
/* vendor.js 322 */ .c831 { margin padding fill: 3383; }
/* vendor.js 323 */ .c480 { return path fill width flex path function width: 1703; }
/* vendor.js 324 */ .c71 { grid path return width width: 2622; }
/* vendor.js 325 */ .c257 { grid display width grid: 2291; }
/* vendor.js 326 */ .c910 { span padding width stroke div const: 156; }
/* vendor.js 327 */ .c37 { span flex div span grid display padding: 940; }
/* vendor.js 328 */ .c411 { function div padding stroke div grid div fill: 1977; }
/* vendor.js 329 */ .c444 { span color return: 3531; }
/* vendor.js 330 */ .c207 { height margin const height width function margin: 1452; }
/* vendor.js 331 */ .c623 { span fill return stroke height height: 2031; }
/* vendor.js 332 */ .c970 { grid stroke grid: 2802; }
/* vendor.js 333 */ .c608 { return color span function flex flex height color margin: 1208; }
/* vendor.js 334 */ .c610 { stroke function grid path fill: 1983; }
/* vendor.js 335 */ .c649 { color color div div const margin let: 708; }
/* vendor.js 336 */ .c776 { span grid grid display padding height grid padding: 859; }
/* vendor.js 337 */ .c449 { height path padding display grid return: 3842; }
/* vendor.js 338 */ .c311 { fill flex const path flex display div: 2054; }
/* vendor.js 339 */ .c19 { div padding padding flex return padding: 812; }
/* vendor.js 340 */ .c459 { display padding fill color fill display: 1875; }
/* vendor.js 341 */ .c734 { flex const function: 1906; }
/* vendor.js 342 */ .c397 { div margin grid const stroke: 3241; }
/* vendor.js 343 */ .c281 { function flex width height color: 2081; }
/* vendor.js 344 */ .c418 { padding color grid span color div: 3999; }
/* vendor.js 345 */ .c994 { margin path span div const margin stroke: 1046; }
/* vendor.js 346 */ .c505 { div display let margin let: 837; }
/* vendor.js 347 */ .c903 { display stroke return return: 2533; }
/* vendor.js 348 */ .c832 { return path padding: 446; }
/* vendor.js 349 */ .c152 { stroke stroke let grid let width function display: 1957; }
/* vendor.js 350 */ .c164 { display span return grid flex margin margin padding: 927; }
/* vendor.js 351 */ .c112 { flex span display: 2045; }
/* vendor.js 352 */ .c248 { width display padding return margin width let height: 1137; }
/* vendor.js 353 */ .c116 { path flex height return width: 1718; }
/* vendor.js 354 */ .c769 { const flex color: 2080; }
/* vendor.js 355 */ .c614 { grid const const width return fill display height grid: 914; }
/* vendor.js 356 */ .c583 { display flex color height display: 1018; }
/* vendor.js 357 */ .c652 { margin span width fill path div span: 2688; }
/* vendor.js 358 */ .c399 { margin display height return let function: 1500; }
/* vendor.js 359 */ .c95 { flex div function margin: 2185; }
/* vendor.js 360 */ .c767 { flex const fill width width width padding grid div: 2251; }
/* vendor.js 361 */ .c549 { path display display: 2867; }
/* vendor.js 362 */ .c817 { div const color: 2861; }
/* vendor.js 363 */ .c667 { height return let fill path margin: 2118; }
/* vendor.js 364 */ .c298 { width flex flex function span grid path function display: 4041; }
/* vendor.js 365 */ .c370 { return fill function const stroke: 3927; }
/* vendor.js 366 */ .c52 { let const display stroke: 3453; }
/* vendor.js 367 */ .c353 { display display width function span fill path stroke height: 313; }
/* vendor.js 368 */ .c269 { fill span function flex color return: 2265; }
/* vendor.js 369 */ .c497 { path flex grid path function const display fill display: 3218; }
/* vendor.js 370 */ .c449 { flex const stroke: 2616; }
/* vendor.js 371 */ .c250 { div const stroke function path display const: 704; }
/* vendor.js 372 */ .c121 { display height width fill color function flex margin: 2162; }
/* vendor.js 373 */ .c798 { stroke stroke const span padding margin: 3108; }
/* vendor.js 374 */ .c757 { let fill span return div grid: 1879; }
/* vendor.js 375 */ .c525 { const stroke display width div return margin function: 3513; }
/* vendor.js 376 */ .c918 { height stroke return color: 2471; }
/* vendor.js 377 */ .c476 { const width display margin width width: 3532; }
/* vendor.js 378 */ .c758 { flex span span function let function stroke flex: 2194; }
/* vendor.js 379 */ .c499 { width margin div: 2083; }
/* vendor.js 380 */ .c351 { stroke const flex path display function: 1157; }
/* vendor.js 381 */ .c276 { const span let: 3760; }
/* vendor.js 382 */ .c879 { margin const span margin: 3500; }
/* vendor.js 383 */ .c127 { color function stroke const display color const: 743; }
/* vendor.js 384 */ .c135 { padding height margin stroke flex: 616; }
/* vendor.js 385 */ .c175 { display return const padding height path let: 4078; }
/* vendor.js 386 */ .c178 { div height width fill let display: 3993; }
/* vendor.js 387 */ .c660 { function color fill flex stroke: 3896; }
/* vendor.js 388 */ .c303 { return span let fill flex display display span: 4012; }
/* vendor.js 389 */ .c521 { const path let path: 2078; }
/* vendor.js 390 */ .c738 { color const stroke padding height fill span: 1683; }
/* vendor.js 391 */ .c187 { return span div div path path return: 291; }
/* vendor.js 392 */ .c886 { margin span padding display margin stroke: 3594; }
/* vendor.js 393 */ .c675 { padding path path stroke grid color width color path: 1452; }
/* vendor.js 394 */ .c160 { div const color: 3088; }
/* vendor.js 395 */ .c142 { color height const width stroke let: 3477; }
/* vendor.js 396 */ .c319 { return width path grid path stroke color let display: 2281; }
/* vendor.js 397 */ .c47 { const return grid function margin grid: 3248; }
/* vendor.js 398 */ .c900 { let flex let display div height: 1496; }
/* vendor.js 399 */ .c444 { grid display padding function const path display fill: 2508; }
/* vendor.js 400 */ .c347 { display return width: 191; }
/* vendor.js 401 */ .c320 { const flex color return stroke: 2354; }
/* vendor.js 402 */ .c64 { function padding function height let color display margin margin: 1022; }
/* vendor.js 403 */ .c926 { path span div: 2516; }
/* vendor.js 404 */ .c917 { flex flex return span fill: 1412; }
/* vendor.js 405 */ .c131 { margin flex margin height const: 895; }
/* vendor.js 406 */ .c778 { stroke const return function grid padding padding: 2012; }
/* vendor.js 407 */ .c96 { const path path width span return display padding width: 3309; }
/* vendor.js 408 */ .c15 { const fill div height display width fill stroke: 544; }
/* vendor.js 409 */ .c399 { fill grid margin div const: 1412; }
/* vendor.js 410 */ .c213 { fill stroke width margin: 2965; }
/* vendor.js 411 */ .c239 { div width margin display const return display grid: 1927; }
/* vendor.js 412 */ .c520 { height span span flex grid grid width: 3939; }
/* vendor.js 413 */ .c133 { stroke color color grid: 394; }
/* vendor.js 414 */ .c898 { return padding span color display return padding grid return: 3885; }
/* vendor.js 415 */ .c95 { height fill return display display grid path width height: 885; }
/* vendor.js 416 */ .c491 { padding color height grid span: 1875; }
/* vendor.js 417 */ .c81 { fill display grid stroke height const: 1872; }
/* vendor.js 418 */ .c960 { return stroke stroke let margin flex const: 33; }
/* vendor.js 419 */ .c154 { height let div div: 196; }
/* vendor.js 420 */ .c145 { flex function span let grid path stroke height div: 1315; }
/* vendor.js 421 */ .c348 { const const color fill function: 1875; }
/* vendor.js 422 */ .c539 { div margin div span width div span margin: 29; }
/* vendor.js 423 */ .c611 { return stroke stroke path return span: 1546; }
/* vendor.js 424 */ .c888 { grid span const function span: 2769; }
/* vendor.js 425 */ .c477 { width padding div fill path: 1815; }
/* vendor.js 426 */ .c26 { return fill display const let div fill div function: 3948; }
/* vendor.js 427 */ .c928 { height display span width color color stroke: 2239; }
/* vendor.js 428 */ .c343 { div color display let fill flex span path: 1333; }
/* vendor.js 429 */ .c113 { margin padding span let let: 2256; }
/* vendor.js 430 */ .c955 { width display fill return function width: 869; }
/* vendor.js 431 */ .c235 { margin display color color: 140; }
/* vendor.js 432 */ .c713 { height grid span display return grid span display: 148; }
/* vendor.js 433 */ .c38 { div span span function width let display const width: 2544; }
/* vendor.js 434 */ .c254 { return height fill display: 2548; }
/* vendor.js 435 */ .c944 { fill fill let fill flex return fill: 323; }
/* vendor.js 436 */ .c414 { const const height height width width width: 901; }
/* vendor.js 437 */ .c550 { height path width let height: 3006; }
/* vendor.js 438 */ .c671 { div flex width fill display padding height width: 3744; }
/* vendor.js 439 */ .c477 { return const path: 1809; }
/* vendor.js 440 */ .c45 { span margin function: 1687; }
/* vendor.js 441 */ .c993 { stroke color width: 3689; }
/* vendor.js 442 */ .c583 { return flex path padding span grid: 962; }
/* vendor.js 443 */ .c498 { flex display padding: 2526; }
/* vendor.js 444 */ .c718 { fill function const div span flex: 812; }
/* vendor.js 445 */ .c861 { stroke width flex return padding width return div display: 2988; }
/* vendor.js 446 */ .c319 { padding function width return let flex return display: 3891; }
/* vendor.js 447 */ .c28 { fill width fill color: 3122; }
/* vendor.js 448 */ .c21 { grid width span: 3613; }
/* vendor.js 449 */ .c192 { width color grid width grid stroke: 3572; }
/* vendor.js 450 */ .c703 { height path display const const div return let: 3895; }
/* vendor.js 451 */ .c323 { height let fill fill let: 3856; }
/* vendor.js 452 */ .c876 { fill path stroke const const color: 1736; }
/* vendor.js 453 */ .c471 { span const stroke fill margin fill let return display: 3654; }
/* vendor.js 454 */ .c481 { height color height const span: 3422; }
/* vendor.js 455 */ .c55 { function width fill function grid: 1092; }
/* vendor.js 456 */ .c16 { path span return return function return path return: 706; }
/* vendor.js 457 */ .c773 { width stroke span path fill width return span: 2740; }
/* vendor.js 458 */ .c910 { width span color: 1778; }
/* vendor.js 459 */ .c270 { stroke stroke padding const fill: 2730; }
/* vendor.js 460 */ .c926 { div color color span fill stroke margin path height: 3568; }
/* vendor.js 461 */ .c534 { stroke path padding grid path function: 2616; }
/* vendor.js 462 */ .c958 { margin div return margin margin: 472; }
/* vendor.js 463 */ .c492 { path let padding grid: 779; }
/* vendor.js 464 */ .c546 { return grid stroke const const height: 1563; }
/* vendor.js 465 */ .c523 { div height span flex padding: 2466; }
/* vendor.js 466 */ .c901 { fill padding path width display padding: 2195; }
/* vendor.js 467 */ .c257 { grid margin fill div display color grid span const: 157; }
/* vendor.js 468 */ .c536 { height fill span display: 117; }
/* vendor.js 469 */ .c386 { function const flex height height flex height flex: 3585; }
/* vendor.js 470 */ .c414 { display padding span path flex color function: 3136; }
/* vendor.js 471 */ .c69 { path height let const let margin padding: 2191; }
/* vendor.js 472 */ .c740 { const div width let margin: 1203; }
/* vendor.js 473 */ .c239 { fill grid const: 3792; }
/* vendor.js 474 */ .c413 { div padding margin fill stroke const display margin padding: 2136; }
/* vendor.js 475 */ .c511 { grid display width: 807; }
/* vendor.js 476 */ .c164 { return padding color: 1196; }
/* vendor.js 477 */ .c526 { span color height const flex return: 792; }
/* vendor.js 478 */ .c171 { margin return span width display color div function: 1763; }
/* vendor.js 479 */ .c157 { const display height stroke return color color display: 2746; }
/* vendor.js 480 */ .c515 { function stroke fill flex: 2563; }
/* vendor.js 481 */ .c964 { padding padding grid width let padding fill flex: 1208; }
/* vendor.js 482 */ .c855 { path path height function margin const grid: 4075; }
/* vendor.js 483 */ .c268 { width height function padding span return width display: 609; }
/* vendor.js 484 */ .c71 { grid span height: 3891; }
/* vendor.js 485 */ .c213 { function return const const height div: 255; }
/* vendor.js 486 */ .c229 { padding return let return width margin return fill: 1690; }
/* vendor.js 487 */ .c265 { display display margin flex let display: 711; }
/* vendor.js 488 */ .c932 { height function div height: 2163; }
/* vendor.js 489 */ .c427 { display function fill fill margin: 3984; }
/* vendor.js 490 */ .c158 { width padding height: 1655; }
/* vendor.js 491 */ .c329 { const path function flex div: 3047; }
/* vendor.js 492 */ .c534 { path function const div: 3037; }
/* vendor.js 493 */ .c81 { flex color padding fill: 2049; }
/* vendor.js 494 */ .c647 { const height width function display div const: 1307; }
/* vendor.js 495 */ .c370 { return const return stroke path: 343; }
/* vendor.js 496 */ .c49 { grid div width: 3052; }
/* vendor.js 497 */ .c385 { fill margin flex grid margin grid: 3374; }
/* vendor.js 498 */ .c184 { padding display color return height: 2066; }
/* vendor.js 499 */ .c739 { fill stroke let display height div let flex flex: 2851; }
/* vendor.js 500 */ .c31 { path stroke color width display path function: 899; }
/* vendor.js 501 */ .c387 { display width color: 2985; }
/* vendor.js 502 */ .c944 { height height let flex height function: 2096; }
/* vendor.js 503 */ .c40 { span div path span color color: 3075; }
/* vendor.js 504 */ .c274 { return const display return: 1531; }
/* vendor.js 505 */ .c161 { flex padding width flex stroke path: 1864; }
/* vendor.js 506 */ .c375 { display color height span fill path height: 2235; }
/* vendor.js 507 */ .c202 { fill height width: 2249; }
/* vendor.js 508 */ .c661 { fill function fill color return margin const: 2391; }
/* vendor.js 509 */ .c680 { width flex const flex padding let return: 1221; }
/* vendor.js 510 */ .c770 { div width let: 296; }
/* vendor.js 511 */ .c892 { div const const stroke margin const function path margin: 719; }
/* vendor.js 512 */ .c739 { grid height flex padding path flex: 3896; }
/* vendor.js 513 */ .c773 { padding color function: 3840; }
/* vendor.js 514 */ .c451 { padding display color color color margin: 1055; }
/* vendor.js 515 */ .c740 { const margin div stroke margin let flex margin: 3649; }
/* vendor.js 516 */ .c283 { height stroke display: 3636; }
/* vendor.js 517 */ .c385 { span height let let fill height stroke grid height: 2771; }
/* vendor.js 518 */ .c132 { margin display function const padding flex grid stroke width: 148; }
/* vendor.js 519 */ .c841 { path path div margin div margin fill div: 1346; }
/* vendor.js 520 */ .c970 { display const path let flex const: 874; }
/* vendor.js 521 */ .c232 { color function function function flex width: 1608; }
/* vendor.js 522 */ .c761 { color padding stroke return padding stroke height function fill: 2656; }
/* vendor.js 523 */ .c331 { margin div padding color path padding div let: 592; }
/* vendor.js 524 */ .c321 { fill flex color return display padding: 1055; }
/* vendor.js 525 */ .c294 { flex color grid padding return: 2358; }
/* vendor.js 526 */ .c369 { path return return path height const: 2900; }
/* vendor.js 527 */ .c797 { height path const padding stroke return: 438; }
/* vendor.js 528 */ .c876 { stroke margin height return let color fill div grid: 2815; }
/* vendor.js 529 */ .c685 { return stroke let let let function height function padding: 3659; }
/* vendor.js 530 */ .c326 { function return stroke margin stroke stroke flex: 3534; }
/* vendor.js 531 */ .c246 { const flex fill display let grid function width: 492; }
/* vendor.js 532 */ .c613 { div padding height: 2572; }
/* vendor.js 533 */ .c141 { stroke display fill: 66; }
/* vendor.js 534 */ .c980 { span div flex width let return flex span: 3219; }
/* vendor.js 535 */ .c156 { height grid fill function: 1316; }
/* vendor.js 536 */ .c65 { fill let display: 504; }
/* vendor.js 537 */ .c634 { flex grid color function: 2077; }
/* vendor.js 538 */ .c994 { span padding height height const height: 1582; }
/* vendor.js 539 */ .c641 { width color grid fill display: 3874; }
/* vendor.js 540 */ .c429 { function padding height span span div function padding: 3230; }
/* vendor.js 541 */ .c930 { height path margin grid: 2314; }
/* vendor.js 542 */ .c239 { let display fill width let return color stroke function: 1533; }
/* vendor.js 543 */ .c422 { color height color let color let fill: 2186; }
/* vendor.js 544 */ .c906 { color span fill span const: 2102; }
/* vendor.js 545 */ .c420 { grid return display: 1790; }
/* vendor.js 546 */ .c337 { width return path: 2329; }
/* vendor.js 547 */ .c274 { span margin color height const flex margin: 3923; }
/* vendor.js 548 */ .c35 { fill width let width path color span flex function: 1852; }
/* vendor.js 549 */ .c657 { stroke fill fill path: 2140; }
/* vendor.js 550 */ .c238 { let function display margin return grid: 2071; }
/* vendor.js 551 */ .c736 { return span margin display padding padding const return: 730; }
/* vendor.js 552 */ .c809 { let width height function fill margin width const fill: 3147; }
/* vendor.js 553 */ .c980 { margin stroke height function div flex flex grid height: 123; }
/* vendor.js 554 */ .c646 { function display height display height: 757; }
/* vendor.js 555 */ .c617 { color padding span const margin path flex function: 2616; }
/* vendor.js 556 */ .c154 { span path height color width margin const span: 2542; }
/* vendor.js 557 */ .c325 { path fill stroke display height path: 2402; }
/* vendor.js 558 */ .c831 { flex fill flex flex let grid: 4036; }
/* vendor.js 559 */ .c42 { width function padding stroke let flex span display: 3764; }
/* vendor.js 560 */ .c107 { stroke function const fill: 3739; }
/* vendor.js 561 */ .c510 { function stroke const function let color path grid: 1726; }
/* vendor.js 562 */ .c742 { padding stroke fill: 216; }
/* vendor.js 563 */ .c499 { const let color span path stroke: 2952; }
/* vendor.js 564 */ .c327 { function return padding: 1590; }
/* vendor.js 565 */ .c64 { return fill flex fill height fill: 600; }
/* vendor.js 566 */ .c928 { display padding width span color span let return: 2280; }
/* vendor.js 567 */ .c637 { flex color path let: 816; }
/* vendor.js 568 */ .c177 { let display fill height grid let: 1845; }
/* vendor.js 569 */ .c3 { path flex display grid fill div width fill margin: 2037; }
/* vendor.js 570 */ .c453 { const div display div height span flex: 2124; }
/* vendor.js 571 */ .c24 { width fill return width: 12; }
/* vendor.js 572 */ .c168 { span margin flex flex: 165; }
/* vendor.js 573 */ .c52 { height let const height width return function flex div: 3383; }
/* vendor.js 574 */ .c467 { flex width return return return function flex span span: 935; }
/* vendor.js 575 */ .c572 { span div span function fill span const: 3196; }
/* vendor.js 576 */ .c120 { fill display display width fill color padding div let: 2002; }
/* vendor.js 577 */ .c86 { margin div color fill return div let grid: 1130; }
/* vendor.js 578 */ .c899 { stroke flex stroke const color padding: 855; }
/* vendor.js 579 */ .c628 { padding width color: 1070; }
/* vendor.js 580 */ .c801 { height path height: 3137; }
/* vendor.js 581 */ .c667 { padding path padding let display path margin div padding: 1084; }
/* vendor.js 582 */ .c58 { display stroke return div span grid margin height: 1320; }
/* vendor.js 583 */ .c599 { height let padding color margin: 3935; }
/* vendor.js 584 */ .c334 { fill margin fill flex const const: 3493; }
/* vendor.js 585 */ .c858 { color display grid grid: 384; }
/* vendor.js 586 */ .c856 { path display width const margin stroke margin function div: 2709; }
/* vendor.js 587 */ .c746 { margin return stroke return stroke display const grid let: 436; }
/* vendor.js 588 */ .c102 { height height const fill color: 2789; }
/* vendor.js 589 */ .c889 { display span let: 379; }
/* vendor.js 590 */ .c840 { grid function stroke function padding function path: 3450; }
/* vendor.js 591 */ .c303 { margin return width color padding: 2083; }
/* vendor.js 592 */ .c939 { return const flex padding fill stroke color span width: 2894; }
/* vendor.js 593 */ .c982 { div display color color fill function width: 1453; }
/* vendor.js 594 */ .c302 { fill let return path function const path span color: 648; }
/* vendor.js 595 */ .c140 { path div const const margin display: 2264; }
/* vendor.js 596 */ .c389 { color flex function const margin: 4094; }
/* vendor.js 597 */ .c146 { padding span padding: 3363; }
/* vendor.js 598 */ .c25 { const width return function let color: 554; }
/* vendor.js 599 */ .c447 { const color display width path function: 2994; }
/* vendor.js 600 */ .c107 { grid flex function return color span width: 1914; }
/* vendor.js 601 */ .c800 { function grid width fill color width: 584; }
/* vendor.js 602 */ .c389 { return span padding span color const display display return: 333; }
/* vendor.js 603 */ .c919 { margin color const display grid margin: 3803; }
/* vendor.js 604 */ .c965 { margin height flex display display function grid stroke grid: 3946; }
/* vendor.js 605 */ .c549 { div span flex height grid: 392; }
/* vendor.js 606 */ .c613 { div height display padding fill stroke: 3304; }
/* vendor.js 607 */ .c599 { div fill margin function flex return padding let stroke: 547; }
/* vendor.js 608 */ .c926 { stroke stroke height const let div width padding div: 3609; }
/* vendor.js 609 */ .c271 { fill padding const width width grid margin flex margin: 1338; }
/* vendor.js 610 */ .c52 { flex display display flex margin: 337; }
/* vendor.js 611 */ .c665 { color fill return flex color: 3568; }
/* vendor.js 612 */ .c497 { margin fill path function display margin grid span stroke: 2421; }
/* vendor.js 613 */ .c117 { path display path margin: 3364; }
/* vendor.js 614 */ .c669 { flex padding flex grid padding: 2429; }
/* vendor.js 615 */ .c433 { height let flex margin height flex path let: 2996; }
/* vendor.js 616 */ .c495 { function margin padding display stroke: 1101; }
/* vendor.js 617 */ .c773 { height fill path let width grid flex: 3022; }
/* vendor.js 618 */ .c995 { flex color function grid color function height display fill: 540; }
/* vendor.js 619 */ .c221 { margin function color const padding span display: 1818; }
/* vendor.js 620 */ .c585 { div margin const padding display: 508; }
/* vendor.js 621 */ .c50 { let const color span return path const stroke margin: 400; }
/* vendor.js 622 */ .c472 { fill flex width color height stroke width div: 1832; }
/* vendor.js 623 */ .c200 { flex fill display return div path path: 620; }
/* vendor.js 624 */ .c724 { flex let height height stroke function path display: 1556; }
/* vendor.js 625 */ .c364 { span padding path: 243; }
/* vendor.js 626 */ .c644 { span width display fill return margin fill: 2154; }
/* vendor.js 627 */ .c641 { return span return height stroke display margin div path: 3962; }
/* vendor.js 628 */ .c171 { return fill const const span stroke: 2561; }
/* vendor.js 629 */ .c136 { div path let span: 906; }
/* vendor.js 630 */ .c464 { padding display flex: 3208; }
/* vendor.js 631 */ .c747 { path const display flex stroke: 3795; }
/* vendor.js 632 */ .c579 { display height padding: 2452; }
/* vendor.js 633 */ .c45 { const path span width div fill path: 2786; }
/* vendor.js 634 */ .c53 { grid let height width let: 708; }
/* vendor.js 635 */ .c204 { path span div: 1644; }
/* vendor.js 636 */ .c550 { color padding color display flex margin let return fill: 1151; }
/* vendor.js 637 */ .c307 { width flex span div height stroke: 1601; }
/* vendor.js 638 */ .c386 { color display grid function margin div: 2822; }
/* vendor.js 639 */ .c456 { div function path return div display: 3771; }
/* vendor.js 640 */ .c592 { height return let display: 3007; }
/* vendor.js 641 */ .c646 { width color div const fill fill margin height: 3273; }
/* vendor.js 642 */ .c56 { stroke path color padding: 85; }
/* vendor.js 643 */ .c878 { display span path const span: 3826; }
/* vendor.js 644 */ .c729 { display function display stroke color: 3490; }
/* vendor.js 645 */ .c856 { margin stroke flex: 3031; }
/* vendor.js 646 */ .c92 { width width padding const display const return function height: 1356; }
/* vendor.js 647 */ .c363 { div height color padding margin path flex: 3490; }
/* vendor.js 648 */ .c902 { const stroke const: 3919; }
/* vendor.js 649 */ .c501 { let div span span function margin div function grid: 2416; }
/* vendor.js 650 */ .c860 { return display let span height div const path path: 2007; }
/* vendor.js 651 */ .c768 { padding path function stroke: 324; }
/* vendor.js 652 */ .c567 { path margin const width span height: 4090; }
/* vendor.js 653 */ .c6 { return display width grid path height function color: 240; }
/* vendor.js 654 */ .c721 { let path let: 1086; }
/* vendor.js 655 */ .c317 { function path fill span let width: 1900; }
/* vendor.js 656 */ .c941 { let height let path margin span: 1759; }
/* vendor.js 657 */ .c697 { div fill path padding let: 1430; }
/* vendor.js 658 */ .c419 { padding margin fill padding let let: 3643; }
/* vendor.js 659 */ .c24 { span grid return: 264; }
/* vendor.js 660 */ .c119 { const margin function: 2466; }
/* vendor.js 661 */ .c245 { width margin const fill stroke const flex fill stroke: 3824; }
/* vendor.js 662 */ .c798 { let function let margin color: 2126; }
/* vendor.js 663 */ .c147 { height padding div let color const height flex: 3807; }
/* vendor.js 664 */ .c308 { width div function display fill let: 552; }
/* vendor.js 665 */ .c831 { return width return div const stroke: 2341; }
/* vendor.js 666 */ .c605 { const display stroke div span function stroke: 1334; }
/* vendor.js 667 */ .c912 { grid fill fill: 3330; }
/* vendor.js 668 */ .c296 { display path color grid div const width display let: 1954; }
/* vendor.js 669 */ .c543 { return grid color div width: 514; }
/* vendor.js 670 */ .c55 { let div height div const: 3186; }
/* vendor.js 671 */ .c338 { flex span const: 699; }
/* vendor.js 672 */ .c558 { function flex function const path stroke stroke: 3206; }
/* vendor.js 673 */ .c101 { height color function height fill width path div: 3885; }
/* vendor.js 674 */ .c884 { stroke grid padding function color let padding path let: 781; }
/* vendor.js 675 */ .c813 { margin color display fill: 1943; }
/* vendor.js 676 */ .c160 { height return const path: 1390; }
/* vendor.js 677 */ .c308 { let path margin grid grid: 3338; }
/* vendor.js 678 */ .c879 { fill height stroke: 899; }
/* vendor.js 679 */ .c661 { grid flex stroke return stroke let width display: 1358; }
/* vendor.js 680 */ .c423 { span function flex height height path grid: 70; }
/* vendor.js 681 */ .c301 { function return path grid fill display fill color: 3421; }
/* vendor.js 682 */ .c236 { height path padding flex span let div display: 311; }
/* vendor.js 683 */ .c95 { color width const function path stroke let: 3731; }
/* vendor.js 684 */ .c586 { function function return flex flex: 1997; }
/* vendor.js 685 */ .c55 { color width padding display padding: 2099; }
/* vendor.js 686 */ .c672 { grid path height grid let div div grid display: 3932; }
/* vendor.js 687 */ .c696 { fill function width div stroke: 2845; }
/* vendor.js 688 */ .c417 { span color const let grid span display padding: 3197; }
/* vendor.js 689 */ .c906 { width span let return display flex: 1324; }
/* vendor.js 690 */ .c535 { padding display let flex stroke stroke span: 3342; }
/* vendor.js 691 */ .c12 { fill color div fill color: 1907; }
/* vendor.js 692 */ .c157 { display let margin span grid return fill stroke fill: 3450; }
/* vendor.js 693 */ .c87 { path width let flex span return: 1959; }
/* vendor.js 694 */ .c869 { return return width margin: 686; }
/* vendor.js 695 */ .c608 { fill path flex display path let padding: 2805; }
/* vendor.js 696 */ .c109 { let flex const height fill fill div: 1879; }
/* vendor.js 697 */ .c411 { path display return: 2260; }
/* vendor.js 698 */ .c195 { function margin fill path let color span width path: 120; }
/* vendor.js 699 */ .c286 { fill height grid div: 3538; }
/* vendor.js 700 */ .c614 { div return return div stroke stroke return: 3683; }
/* vendor.js 701 */ .c945 { return stroke color display margin let: 2246; }
/* vendor.js 702 */ .c342 { stroke function function height width grid path margin: 3479; }
/* vendor.js 703 */ .c985 { display grid function let: 608; }
/* vendor.js 704 */ .c170 { return color fill grid width function path: 3206; }
/* vendor.js 705 */ .c35 { display padding div grid return padding color: 532; }
/* vendor.js 706 */ .c35 { return display width path grid: 3994; }
/* vendor.js 707 */ .c113 { padding path width function: 2051; }
/* vendor.js 708 */ .c606 { path div padding flex grid: 1354; }
/* vendor.js 709 */ .c470 { stroke display display height padding: 1605; }
/* vendor.js 710 */ .c183 { display width function let path color function: 1122; }
/* vendor.js 711 */ .c976 { function padding function fill grid span function padding let: 122; }
/* vendor.js 712 */ .c845 { stroke stroke function div display fill display: 3346; }
/* vendor.js 713 */ .c71 { color const div grid const stroke width: 3806; }
/* vendor.js 714 */ .c195 { margin return grid div grid let span: 3137; }
/* vendor.js 715 */ .c782 { let function stroke color margin: 4082; }
/* vendor.js 716 */ .c821 { fill color fill div stroke display div: 2674; }
/* vendor.js 717 */ .c274 { width fill stroke height const function span function: 1170; }
/* vendor.js 718 */ .c555 { return let height let display padding function display: 2105; }
/* vendor.js 719 */ .c527 { let width span function height width div: 571; }
/* vendor.js 720 */ .c254 { function flex height span: 2793; }
/* vendor.js 721 */ .c92 { flex flex width stroke width function: 1210; }
/* vendor.js 722 */ .c226 { const fill grid height stroke fill: 869; }
/* vendor.js 723 */ .c936 { fill fill padding padding stroke: 390; }
/* vendor.js 724 */ .c333 { span width width path let flex function: 2596; }
/* vendor.js 725 */ .c605 { div margin width stroke grid span height color padding: 1098; }
/* vendor.js 726 */ .c366 { color stroke path height div color function margin let: 1594; }
/* vendor.js 727 */ .c271 { div span const return height let flex color: 3516; }
/* vendor.js 728 */ .c100 { span div const const: 4080; }
/* vendor.js 729 */ .c197 { height height let function: 128; }
/* vendor.js 730 */ .c998 { height fill function fill let return const display stroke: 2831; }
/* vendor.js 731 */ .c683 { span grid let margin span: 1400; }
/* vendor.js 732 */ .c1 { grid return padding const flex span display grid height: 951; }
/* vendor.js 733 */ .c255 { margin height fill margin div grid stroke: 2399; }
/* vendor.js 734 */ .c204 { function span color: 2950; }
/* vendor.js 735 */ .c984 { span fill let display fill return fill: 555; }
/* vendor.js 736 */ .c476 { return padding grid return display: 3944; }
/* vendor.js 737 */ .c404 { fill return let color return path display display const: 2108; }
/* vendor.js 738 */ .c279 { flex div stroke flex color margin display const: 2665; }
/* vendor.js 739 */ .c382 { span path padding margin div flex padding color: 2080; }
/* vendor.js 740 */ .c465 { width height let color padding: 818; }
/* vendor.js 741 */ .c137 { width let const grid flex div div: 3851; }
/* vendor.js 742 */ .c485 { return return path color height: 2057; }
/* vendor.js 743 */ .c341 { path color const path margin height const div: 649; }
/* vendor.js 744 */ .c219 { path display const div function: 2462; }
/* vendor.js 745 */ .c163 { margin width let fill: 1808; }
/* vendor.js 746 */ .c313 { flex width return: 1213; }
/* vendor.js 747 */ .c947 { grid height height display width flex div padding path: 1467; }
/* vendor.js 748 */ .c205 { div let display height const height const const width: 495; }
/* vendor.js 749 */ .c751 { stroke flex flex div: 2695; }
/* vendor.js 750 */ .c858 { function const path padding flex padding margin const: 521; }
/* vendor.js 751 */ .c202 { padding span display: 87; }
/* vendor.js 752 */ .c124 { margin return display const flex span: 488; }
/* vendor.js 753 */ .c526 { height let padding fill: 1655; }
/* vendor.js 754 */ .c922 { color color display flex div return fill: 1950; }
/* vendor.js 755 */ .c868 { margin const margin let color fill: 1939; }
/* vendor.js 756 */ .c202 { function color stroke margin const path let: 533; }
/* vendor.js 757 */ .c330 { padding return div flex width: 575; }
/* vendor.js 758 */ .c470 { span div padding margin path function: 2058; }
/* vendor.js 759 */ .c398 { return function path: 1505; }
/* vendor.js 760 */ .c600 { grid grid margin return padding function: 1701; }
/* vendor.js 761 */ .c545 { flex width width fill const flex: 1322; }
/* vendor.js 762 */ .c417 { margin padding grid display margin: 2740; }
/* vendor.js 763 */ .c251 { padding function padding padding: 1664; }
/* vendor.js 764 */ .c913 { span div flex padding height grid let color stroke: 48; }
/* vendor.js 765 */ .c1 { height color margin: 404; }
/* vendor.js 766 */ .c893 { stroke div let width div margin: 2722; }
/* vendor.js 767 */ .c112 { div span function let path return div: 2833; }
/* vendor.js 768 */ .c393 { let width width span color span div fill function: 808; }
/* vendor.js 769 */ .c970 { margin const let display fill: 1226; }
/* vendor.js 770 */ .c47 { display return flex width return padding function width padding: 3519; }
/* vendor.js 771 */ .c292 { height stroke path width path flex fill width: 1807; }
/* vendor.js 772 */ .c609 { path const function width div padding flex flex return: 1741; }
/* vendor.js 773 */ .c452 { function width div span display: 3073; }
/* vendor.js 774 */ .c338 { function div width let width let stroke return: 2675; }
/* vendor.js 775 */ .c546 { span width height const: 1307; }
/* vendor.js 776 */ .c586 { span let return: 2198; }
/* vendor.js 777 */ .c743 { let stroke function padding: 1062; }
/* vendor.js 778 */ .c363 { flex function width return let const: 2244; }
/* vendor.js 779 */ .c332 { display padding height flex fill: 1130; }
/* vendor.js 780 */ .c343 { height flex display: 3934; }
/* vendor.js 781 */ .c4 { let stroke const width: 1053; }
/* vendor.js 782 */ .c68 { padding span const display return return stroke display: 151; }
/* vendor.js 783 */ .c304 { width grid display: 3664; }
/* vendor.js 784 */ .c212 { margin return let margin stroke stroke width margin margin: 1740; }
/* vendor.js 785 */ .c343 { fill padding div div const: 35; }
/* vendor.js 786 */ .c950 { margin flex margin color width flex height function: 3685; }
/* vendor.js 787 */ .c290 { let color width div span path function grid: 2494; }
/* vendor.js 788 */ .c426 { height width span let: 784; }
/* vendor.js 789 */ .c373 { display flex function let: 3618; }
/* vendor.js 790 */ .c951 { padding height div div: 723; }
/* vendor.js 791 */ .c399 { span flex flex: 468; }
/* vendor.js 792 */ .c691 { stroke flex padding display return display let: 411; }
/* vendor.js 793 */ .c920 { flex width flex padding const function: 1850; }
/* vendor.js 794 */ .c918 { padding span fill span div return: 2106; }
/* vendor.js 795 */ .c194 { display height stroke display let margin flex div: 1851; }
/* vendor.js 796 */ .c539 { grid fill color stroke padding: 2953; }
/* vendor.js 797 */ .c692 { div color stroke color function stroke width return return: 2063; }
/* vendor.js 798 */ .c840 { color div stroke padding margin color span function: 552; }
/* vendor.js 799 */ .c259 { padding return flex span height: 2812; }
/* vendor.js 800 */ .c382 { let let span width display grid: 2826; }
/* vendor.js 801 */ .c189 { display color span const: 114; }
/* vendor.js 802 */ .c692 { fill div width path return div stroke width: 16; }
/* vendor.js 803 */ .c458 { width flex color div: 1186; }
/* vendor.js 804 */ .c617 { height height path: 3468; }
/* vendor.js 805 */ .c963 { function margin display flex: 205; }
/* vendor.js 806 */ .c108 { return margin return path div let let: 65; }
/* vendor.js 807 */ .c863 { color grid color let stroke width return: 457; }
/* vendor.js 808 */ .c507 { let let const margin function grid: 2364; }
/* vendor.js 809 */ .c171 { flex span const div width: 3981; }
/* vendor.js 810 */ .c302 { span display return div function: 2775; }
/* vendor.js 811 */ .c523 { display color color display return fill: 2331; }
/* vendor.js 812 */ .c367 { div stroke return padding const div let: 2583; }
/* vendor.js 813 */ .c541 { margin stroke width: 3814; }
/* vendor.js 814 */ .c574 { span path grid div fill return padding span flex: 1327; }
/* vendor.js 815 */ .c147 { height path div color: 1417; }
/* vendor.js 816 */ .c414 { grid display return path padding: 2231; }
/* vendor.js 817 */ .c624 { flex stroke let width let return return padding padding: 998; }
/* vendor.js 818 */ .c750 { width const stroke margin span div margin display margin: 4080; }
/* vendor.js 819 */ .c441 { div fill stroke const let const: 1303; }
/* vendor.js 820 */ .c29 { path div grid grid stroke height display grid: 894; }
/* vendor.js 821 */ .c970 { width let height: 1956; }
/* vendor.js 822 */ .c217 { div function display margin return width div: 170; }
/* vendor.js 823 */ .c903 { color grid path fill: 3399; }
/* vendor.js 824 */ .c766 { function flex const flex margin: 3178; }
/* vendor.js 825 */ .c587 { function let padding flex div grid: 1978; }
/* vendor.js 826 */ .c116 { let function padding div padding div margin color: 1349; }
/* vendor.js 827 */ .c645 { span margin let stroke: 3443; }
/* vendor.js 828 */ .c957 { function height stroke span margin color div const: 3191; }
/* vendor.js 829 */ .c547 { stroke div function span height const: 1702; }
/* vendor.js 830 */ .c412 { let color height fill height return: 806; }
/* vendor.js 831 */ .c155 { flex return return: 3538; }
/* vendor.js 832 */ .c999 { width span grid display margin: 630; }
/* vendor.js 833 */ .c999 { const margin return grid return function flex flex: 928; }
/* vendor.js 834 */ .c212 { div span const const div: 2528; }
/* vendor.js 835 */ .c803 { const function span height color div: 969; }
/* vendor.js 836 */ .c470 { const display width div padding span height: 1508; }
/* vendor.js 837 */ .c826 { height div function grid padding: 617; }
/* vendor.js 838 */ .c93 { return span function path path stroke stroke grid const: 952; }
/* vendor.js 839 */ .c536 { stroke width path grid height const padding: 877; }
/* vendor.js 840 */ .c793 { function span flex let display display grid width: 4072; }
/* vendor.js 841 */ .c987 { color padding const return height div: 4044; }
/* vendor.js 842 */ .c305 { margin span margin color: 1261; }
/* vendor.js 843 */ .c721 { function height stroke span path: 3346; }
/* vendor.js 844 */ .c288 { color stroke const: 217; }
/* vendor.js 845 */ .c886 { height height return grid span path fill grid div: 3423; }
/* vendor.js 846 */ .c49 { function path return div const width fill span: 1808; }
/* vendor.js 847 */ .c854 { return const fill path grid path display function: 3246; }
/* vendor.js 848 */ .c296 { display div margin div path let padding return margin: 2943; }
/* vendor.js 849 */ .c454 { fill fill div color stroke return function: 123; }
/* vendor.js 850 */ .c663 { width width flex path stroke path display: 508; }
/* vendor.js 851 */ .c428 { path padding height flex: 2718; }
/* vendor.js 852 */ .c377 { div return grid stroke: 3822; }
/* vendor.js 853 */ .c987 { function return flex: 2960; }
/* vendor.js 854 */ .c511 { display let return padding span color fill fill return: 3761; }
/* vendor.js 855 */ .c817 { grid stroke padding span return: 133; }
/* vendor.js 856 */ .c951 { margin grid flex div: 2838; }
/* vendor.js 857 */ .c500 { let path color let const function flex function: 3901; }
/* vendor.js 858 */ .c201 { div div let display: 3769; }
/* vendor.js 859 */ .c42 { display path flex width display stroke grid flex: 3439; }
/* vendor.js 860 */ .c399 { return color height height width color stroke flex function: 974; }
/* vendor.js 861 */ .c201 { fill display span: 3566; }
/* vendor.js 862 */ .c886 { function stroke padding stroke div padding: 3348; }
/* vendor.js 863 */ .c182 { const span height div return let path fill: 14; }
/* vendor.js 864 */ .c728 { color padding padding const grid let function: 312; }
/* vendor.js 865 */ .c349 { function display padding: 1637; }
/* vendor.js 866 */ .c689 { display width padding div function height flex stroke: 2605; }
/* vendor.js 867 */ .c229 { return const display height: 1657; }
/* vendor.js 868 */ .c250 { grid width const: 3057; }
/* vendor.js 869 */ .c608 { width flex grid: 1154; }
/* vendor.js 870 */ .c399 { fill flex display width stroke: 797; }
/* vendor.js 871 */ .c806 { height width display return span flex: 3495; }
/* vendor.js 872 */ .c988 { grid color height grid return path: 3934; }
/* vendor.js 873 */ .c867 { path path span color stroke margin: 1057; }
/* vendor.js 874 */ .c591 { stroke const span: 3564; }
/* vendor.js 875 */ .c440 { width const padding grid color height padding padding: 1293; }
/* vendor.js 876 */ .c596 { return flex return: 1982; }
/* vendor.js 877 */ .c818 { return display span stroke let: 1308; }
/* vendor.js 878 */ .c369 { span div path: 1545; }
/* vendor.js 879 */ .c556 { display fill stroke: 1563; }
/* vendor.js 880 */ .c875 { stroke padding grid return margin: 1056; }
/* vendor.js 881 */ .c635 { padding grid const stroke margin grid path margin function: 605; }
/* vendor.js 882 */ .c890 { function display div: 3437; }
/* vendor.js 883 */ .c919 { path stroke color: 42; }
/* vendor.js 884 */ .c262 { fill div flex const fill: 271; }
/* vendor.js 885 */ .c261 { const grid margin fill fill span height return stroke: 1740; }
/* vendor.js 886 */ .c638 { fill div height: 1432; }
/* vendor.js 887 */ .c24 { grid path path padding: 2994; }
/* vendor.js 888 */ .c136 { fill color height function fill let: 1272; }
/* vendor.js 889 */ .c701 { padding span div display: 530; }
/* vendor.js 890 */ .c109 { margin grid function span span margin: 3320; }
/* vendor.js 891 */ .c124 { margin flex let let let color display margin return: 279; }
/* vendor.js 892 */ .c777 { grid width const width path display margin return: 993; }
/* vendor.js 893 */ .c636 { margin span let: 858; }
/* vendor.js 894 */ .c508 { div color path display span: 3398; }
/* vendor.js 895 */ .c122 { stroke color stroke const grid: 2773; }
/* vendor.js 896 */ .c798 { fill display fill const path let height flex: 1530; }
/* vendor.js 897 */ .c82 { return grid grid let grid path: 618; }
/* vendor.js 898 */ .c382 { return function return flex return fill margin width function: 119; }
/* vendor.js 899 */ .c296 { padding stroke padding path: 1189; }
/* vendor.js 900 */ .c107 { fill flex grid stroke fill: 546; }
/* vendor.js 901 */ .c53 { span flex let grid padding grid grid stroke: 1517; }
/* vendor.js 902 */ .c480 { padding let fill let fill display margin: 2325; }
/* vendor.js 903 */ .c116 { fill function return margin grid margin grid fill function: 3937; }
/* vendor.js 904 */ .c63 { function grid padding function path: 3007; }
/* vendor.js 905 */ .c569 { path stroke height margin: 3952; }
/* vendor.js 906 */ .c196 { grid height const function height margin grid padding: 2477; }
/* vendor.js 907 */ .c978 { stroke function height function padding fill path stroke: 2444; }
/* vendor.js 908 */ .c843 { height div height fill grid return padding width path: 2003; }
/* vendor.js 909 */ .c561 { stroke height let: 2230; }
/* vendor.js 910 */ .c653 { path height margin grid stroke return height stroke stroke: 2803; }
/* vendor.js 911 */ .c254 { const return path grid flex width function: 1676; }
/* vendor.js 912 */ .c218 { let path let stroke stroke fill fill: 1210; }
/* vendor.js 913 */ .c897 { path stroke display div display div: 3583; }
/* vendor.js 914 */ .c225 { span grid path div color color const span let: 2827; }
/* vendor.js 915 */ .c936 { const return fill flex function display grid: 3827; }
/* vendor.js 916 */ .c515 { span display flex stroke: 1188; }
/* vendor.js 917 */ .c856 { return padding color margin height width: 1137; }
/* vendor.js 918 */ .c831 { margin grid margin flex div const let: 2345; }
/* vendor.js 919 */ .c884 { height display function: 1789; }
/* vendor.js 920 */ .c652 { flex display width padding span let return width grid: 3669; }
/* vendor.js 921 */ .c959 { padding function padding display let stroke color path path: 66; }
/* vendor.js 922 */ .c161 { div flex function color: 1409; }
/* vendor.js 923 */ .c484 { fill display height: 2572; }
/* vendor.js 924 */ .c210 { div height padding let: 1270; }
/* vendor.js 925 */ .c660 { span fill color const: 8; }
/* vendor.js 926 */ .c847 { path path height function stroke grid: 3998; }
/* vendor.js 927 */ .c294 { display fill height: 607; }
/* vendor.js 928 */ .c139 { let margin span function const color: 2315; }
/* vendor.js 929 */ .c652 { return fill grid flex color path const span margin: 567; }
/* vendor.js 930 */ .c215 { const width margin padding span padding: 1172; }
/* vendor.js 931 */ .c185 { return flex div: 3137; }
/* vendor.js 932 */ .c566 { div fill stroke let: 1270; }
/* vendor.js 933 */ .c773 { function grid height fill span return fill span: 401; }
/* vendor.js 934 */ .c980 { div div div display: 3058; }
/* vendor.js 935 */ .c286 { color const display: 3657; }
/* vendor.js 936 */ .c850 { padding margin path color padding width let span height: 3471; }
/* vendor.js 937 */ .c708 { margin color let color width fill: 3828; }
/* vendor.js 938 */ .c940 { flex height const flex height let: 1364; }
/* vendor.js 939 */ .c219 { path path fill height height return div: 539; }
/* vendor.js 940 */ .c705 { const span flex const: 1306; }
/* vendor.js 941 */ .c848 { path function const fill: 3289; }
/* vendor.js 942 */ .c726 { fill return span stroke flex fill: 4087; }
/* vendor.js 943 */ .c818 { color padding flex height display margin width span: 616; }
/* vendor.js 944 */ .c57 { fill return display: 331; }
/* vendor.js 945 */ .c718 { padding grid span: 3514; }
/* vendor.js 946 */ .c611 { padding const padding height function stroke span: 3325; }
/* vendor.js 947 */ .c846 { return flex padding div color margin: 3824; }
/* vendor.js 948 */ .c898 { display flex fill path: 2921; }
/* vendor.js 949 */ .c380 { stroke grid div return height let stroke fill fill: 1505; }
/* vendor.js 950 */ .c803 { grid div return display flex: 891; }
/* vendor.js 951 */ .c898 { color div fill stroke: 817; }
/* vendor.js 952 */ .c438 { width grid function stroke path function height fill: 921; }
/* vendor.js 953 */ .c675 { width padding height fill return span const fill: 1235; }
/* vendor.js 954 */ .c960 { stroke return fill span stroke stroke function display color: 1344; }
/* vendor.js 955 */ .c190 { const width width width height const path: 1092; }
/* vendor.js 956 */ .c7 { margin stroke fill grid div: 1435; }
/* vendor.js 957 */ .c589 { path path width function flex const margin display: 3198; }
/* vendor.js 958 */ .c516 { flex function path path const let color: 2207; }
/* vendor.js 959 */ .c859 { height grid width padding: 2383; }
/* vendor.js 960 */ .c569 { flex function padding stroke: 3844; }
/* vendor.js 961 */ .c599 { flex span grid: 3775; }
/* vendor.js 962 */ .c862 { display function path let margin span grid fill padding: 2666; }
/* vendor.js 963 */ .c108 { flex width color let height path stroke: 2570; }
/* vendor.js 964 */ .c605 { padding span flex display function padding stroke: 2550; }
/* vendor.js 965 */ .c789 { margin margin span display: 1247; }
/* vendor.js 966 */ .c322 { return display color function: 2613; }
/* vendor.js 967 */ .c315 { function function return display return: 172; }
/* vendor.js 968 */ .c983 { color flex flex span grid fill height width: 695; }
/* vendor.js 969 */ .c628 { margin function display display fill stroke: 1109; }
/* vendor.js 970 */ .c551 { span let div function return flex return stroke flex: 1487; }
/* vendor.js 971 */ .c279 { height width padding: 1280; }
/* vendor.js 972 */ .c308 { height padding path fill const: 1548; }
/* vendor.js 973 */ .c693 { return stroke padding let const width: 3550; }
/* vendor.js 974 */ .c85 { fill stroke div flex: 2775; }
/* vendor.js 975 */ .c292 { div color span function flex padding height: 1361; }
/* vendor.js 976 */ .c408 { display span div fill color let: 356; }
/* vendor.js 977 */ .c837 { stroke let color grid grid path div flex: 3444; }
/* vendor.js 978 */ .c909 { margin return grid height: 2274; }
/* vendor.js 979 */ .c679 { height width let grid return: 581; }
/* vendor.js 980 */ .c492 { flex path display display: 1757; }
/* vendor.js 981 */ .c334 { width margin function flex padding const: 2937; }
/* vendor.js 982 */ .c554 { padding width span grid function let span margin: 334; }
/* vendor.js 983 */ .c307 { path margin stroke div: 1599; }
/* vendor.js 984 */ .c700 { padding return let display grid: 1663; }
/* vendor.js 985 */ .c33 { padding display grid const grid fill const path: 3718; }
/* vendor.js 986 */ .c313 { const height height width color let span: 2710; }
/* vendor.js 987 */ .c979 { div const stroke display: 3520; }
/* vendor.js 988 */ .c784 { stroke padding display div color grid flex return height: 2424; }
/* vendor.js 989 */ .c555 { const span padding stroke fill: 643; }
/* vendor.js 990 */ .c332 { width path padding color width height color: 542; }
/* vendor.js 991 */ .c524 { color return stroke width: 1372; }
/* vendor.js 992 */ .c559 { width display span height function padding function: 2764; }
/* vendor.js 993 */ .c117 { function function span display fill: 1668; }
/* vendor.js 994 */ .c238 { const margin flex: 2043; }
/* vendor.js 995 */ .c885 { function width function div grid flex return: 2168; }
/* vendor.js 996 */ .c10 { grid display function return grid: 12; }
/* vendor.js 997 */ .c46 { let return grid stroke return flex: 1204; }
/* vendor.js 998 */ .c575 { fill path flex fill display: 66; }
/* vendor.js 999 */ .c146 { const fill return let return function display stroke display: 1485; }
/* vendor.js 1000 */ .c934 { span fill height let flex div: 308; }
/* vendor.js 1001 */ .c1 { div grid function const stroke fill grid div display: 2535; }
/* vendor.js 1002 */ .c487 { flex return width height fill flex div return margin: 2244; }
/* vendor.js 1003 */ .c644 { function color return flex height width margin display: 895; }
/* vendor.js 1004 */ .c43 { width grid const height fill flex fill div: 3001; }
/* vendor.js 1005 */ .c806 { flex margin return color padding: 2067; }
/* vendor.js 1006 */ .c707 { div span path fill let margin grid fill padding: 3315; }
/* vendor.js 1007 */ .c157 { height padding flex display: 972; }
/* vendor.js 1008 */ .c557 { div height return return grid color color width color: 2021; }
/* vendor.js 1009 */ .c796 { let height width div color: 3693; }
/* vendor.js 1010 */ .c726 { function margin span height flex padding div grid: 3618; }
/* vendor.js 1011 */ .c896 { height div return div: 1539; }
/* vendor.js 1012 */ .c197 { span div flex flex display height: 3528; }
/* vendor.js 1013 */ .c243 { fill display grid: 3483; }
/* vendor.js 1014 */ .c714 { height grid stroke grid: 1253; }
/* vendor.js 1015 */ .c968 { return grid path return const padding stroke div margin: 265; }
/* vendor.js 1016 */ .c931 { padding stroke const: 2558; }
/* vendor.js 1017 */ .c632 { height margin grid: 2977; }
/* vendor.js 1018 */ .c141 { width grid flex margin: 3142; }
/* vendor.js 1019 */ .c460 { return padding margin padding path: 2378; }
/* vendor.js 1020 */ .c901 { flex return width let stroke width margin fill: 2394; }
/* vendor.js 1021 */ .c626 { stroke flex const const: 1535; }
/* vendor.js 1022 */ .c942 { padding height padding fill: 3604; }
/* vendor.js 1023 */ .c234 { path let div grid margin: 3941; }
/* vendor.js 1024 */ .c326 { const grid div color function path path: 587; }
/* vendor.js 1025 */ .c153 { const stroke span width path color: 2583; }
/* vendor.js 1026 */ .c604 { display margin stroke path padding let path: 1221; }
/* vendor.js 1027 */ .c409 { span grid const let stroke stroke grid: 2692; }
/* vendor.js 1028 */ .c351 { margin div div height return span function: 2400; }
/* vendor.js 1029 */ .c993 { color display stroke color: 2017; }
/* vendor.js 1030 */ .c240 { color margin height return stroke display: 660; }
/* vendor.js 1031 */ .c7 { stroke padding flex flex width stroke div let padding: 501; }
/* vendor.js 1032 */ .c519 { const stroke padding const span let grid width: 3080; }
/* vendor.js 1033 */ .c935 { flex width path div: 1471; }
/* vendor.js 1034 */ .c828 { flex function height flex function flex function: 3931; }
/* vendor.js 1035 */ .c287 { display const path height padding padding stroke span: 637; }
/* vendor.js 1036 */ .c399 { let const div span function: 2771; }
/* vendor.js 1037 */ .c793 { div width span stroke path height color const return: 2273; }
/* vendor.js 1038 */ .c562 { stroke grid function div height: 764; }
/* vendor.js 1039 */ .c493 { grid const function path: 1574; }
/* vendor.js 1040 */ .c982 { return stroke function width div function: 827; }
/* vendor.js 1041 */ .c631 { div div height span margin display: 2704; }
/* vendor.js 1042 */ .c690 { div width margin div fill const: 3196; }
/* vendor.js 1043 */ .c10 { const span height padding span function div color: 2110; }
/* vendor.js 1044 */ .c719 { path div margin grid path padding let: 1111; }
/* vendor.js 1045 */ .c257 { path stroke grid div fill height: 3323; }
/* vendor.js 1046 */ .c1 { function fill let: 618; }
/* vendor.js 1047 */ .c580 { color flex color div color color: 2048; }
/* vendor.js 1048 */ .c748 { padding span let function display fill function: 746; }
/* vendor.js 1049 */ .c698 { div stroke grid return: 883; }
/* vendor.js 1050 */ .c649 { fill padding let height width grid: 326; }
/* vendor.js 1051 */ .c527 { let path margin width stroke padding path: 2634; }
/* vendor.js 1052 */ .c301 { color height stroke div height fill stroke height: 1033; }
/* vendor.js 1053 */ .c227 { margin color width let color padding display padding path: 3714; }
/* vendor.js 1054 */ .c899 { path let display flex div span path padding: 263; }
/* vendor.js 1055 */ .c28 { color grid grid padding: 2313; }
/* vendor.js 1056 */ .c995 { color flex padding const: 1535; }
/* vendor.js 1057 */ .c548 { span stroke grid height padding: 148; }
/* vendor.js 1058 */ .c569 { return flex height let width margin height: 2015; }
/* vendor.js 1059 */ .c774 { span width padding grid: 955; }
/* vendor.js 1060 */ .c837 { div padding span: 1265; }
/* vendor.js 1061 */ .c729 { padding grid grid: 804; }
/* vendor.js 1062 */ .c362 { grid color path: 2734; }
/* vendor.js 1063 */ .c843 { margin fill width path: 990; }
/* vendor.js 1064 */ .c827 { color display display const: 2372; }
/* vendor.js 1065 */ .c130 { flex stroke flex width width display color: 2175; }
/* vendor.js 1066 */ .c25 { return path height return width margin: 2620; }
/* vendor.js 1067 */ .c331 { function display path flex: 1716; }
/* vendor.js 1068 */ .c709 { flex display display return height flex stroke color: 3152; }
/* vendor.js 1069 */ .c376 { grid flex return width span width stroke div: 2559; }
/* vendor.js 1070 */ .c735 { flex div path color color path span path let: 3478; }
/* vendor.js 1071 */ .c681 { const let margin function const let path: 20; }
/* vendor.js 1072 */ .c401 { flex path function grid height let: 181; }
/* vendor.js 1073 */ .c791 { let height padding div: 2392; }
/* vendor.js 1074 */ .c9 { const display stroke height display: 682; }
/* vendor.js 1075 */ .c153 { let function path path: 544; }
/* vendor.js 1076 */ .c254 { fill padding div: 518; }
/* vendor.js 1077 */ .c743 { display let div color span function grid fill: 1761; }
/* vendor.js 1078 */ .c432 { grid return function flex width color const grid: 1797; }
/* vendor.js 1079 */ .c715 { const grid const: 2847; }
/* vendor.js 1080 */ .c242 { display let return grid: 1944; }
/* vendor.js 1081 */ .c549 { function display function color let padding return return function: 909; }
/* vendor.js 1082 */ .c175 { let display grid path color display stroke function: 625; }
/* vendor.js 1083 */ .c723 { padding color function grid const span display fill: 3890; }
/* vendor.js 1084 */ .c298 { let fill function fill width let height: 1267; }
/* vendor.js 1085 */ .c688 { span function width path: 3206; }
/* vendor.js 1086 */ .c0 { margin path height width const stroke div margin stroke: 3425; }
/* vendor.js 1087 */ .c148 { margin span fill let div path path width const: 2386; }
/* vendor.js 1088 */ .c120 { path fill padding color height padding margin: 1960; }
/* vendor.js 1089 */ .c338 { path path width function color grid function fill: 2224; }
/* vendor.js 1090 */ .c941 { div let return display flex: 2669; }
/* vendor.js 1091 */ .c861 { path margin let grid let display: 2068; }
/* vendor.js 1092 */ .c130 { display span grid fill display path grid fill: 4082; }
/* vendor.js 1093 */ .c781 { fill margin display color: 4059; }
/* vendor.js 1094 */ .c218 { margin fill return fill: 3759; }
/* vendor.js 1095 */ .c652 { let flex margin path span margin color display width: 1296; }
/* vendor.js 1096 */ .c555 { grid width display path width padding padding div: 3716; }
/* vendor.js 1097 */ .c144 { stroke div grid function padding return span: 1439; }
/* vendor.js 1098 */ .c111 { margin height fill return padding: 2702; }
/* vendor.js 1099 */ .c187 { padding div color return padding function: 820; }
/* vendor.js 1100 */ .c758 { flex grid stroke div: 995; }
/* vendor.js 1101 */ .c10 { stroke width fill display: 2805; }
/* vendor.js 1102 */ .c335 { color grid return path grid color flex function: 1625; }
/* vendor.js 1103 */ .c40 { path function grid: 798; }
/* vendor.js 1104 */ .c551 { fill color div display margin display display function: 292; }
/* vendor.js 1105 */ .c798 { path color display path height div padding span color: 412; }
/* vendor.js 1106 */ .c353 { padding grid const: 2205; }
/* vendor.js 1107 */ .c773 { flex fill let: 1024; }
/* vendor.js 1108 */ .c506 { flex div const height margin flex let: 1840; }
/* vendor.js 1109 */ .c225 { color width div let fill flex: 5; }
/* vendor.js 1110 */ .c915 { height span function return: 1574; }
/* vendor.js 1111 */ .c659 { flex path const let const div let grid: 3125; }
/* vendor.js 1112 */ .c715 { flex const color margin let height: 1164; }
/* vendor.js 1113 */ .c851 { let stroke display margin: 2058; }
/* vendor.js 1114 */ .c817 { height color return display width div flex padding div: 1600; }
/* vendor.js 1115 */ .c692 { margin height const stroke grid margin: 2036; }
/* vendor.js 1116 */ .c178 { span div fill path span fill: 4073; }
/* vendor.js 1117 */ .c432 { grid padding return grid div height const margin: 3309; }
/* vendor.js 1118 */ .c862 { span margin flex padding const: 1793; }
/* vendor.js 1119 */ .c261 { span return padding let color let padding span: 3138; }
/* vendor.js 1120 */ .c708 { span padding const return function let function const height: 1250; }
/* vendor.js 1121 */ .c281 { const height height padding margin: 4043; }
/* vendor.js 1122 */ .c430 { return height color div span let color: 2332; }
/* vendor.js 1123 */ .c621 { let fill span color let stroke: 3009; }
/* vendor.js 1124 */ .c695 { margin let path let display span: 3677; }
/* vendor.js 1125 */ .c405 { width let height div: 1201; }
/* vendor.js 1126 */ .c366 { path margin stroke grid display div span div: 2206; }
/* vendor.js 1127 */ .c361 { function function width path path: 1482; }
/* vendor.js 1128 */ .c275 { padding color grid span display padding width: 2158; }
/* vendor.js 1129 */ .c924 { grid span const flex: 3908; }
/* vendor.js 1130 */ .c367 { display return grid span function function padding fill: 82; }
/* vendor.js 1131 */ .c89 { height color return color stroke: 173; }
/* vendor.js 1132 */ .c404 { margin padding path function let: 3755; }
/* vendor.js 1133 */ .c469 { let span width fill function function color: 3210; }
/* vendor.js 1134 */ .c192 { function margin div height return: 2805; }
/* vendor.js 1135 */ .c39 { span return grid color span function: 2344; }
/* vendor.js 1136 */ .c331 { width return width color path grid stroke: 993; }
/* vendor.js 1137 */ .c991 { color margin stroke: 1781; }
/* vendor.js 1138 */ .c521 { span padding width let path function grid path: 2022; }
/* vendor.js 1139 */ .c888 { margin color function function stroke let fill grid margin: 1757; }
/* vendor.js 1140 */ .c854 { const margin height color padding: 192; }
/* vendor.js 1141 */ .c290 { let width color const color display let grid color: 2906; }
/* vendor.js 1142 */ .c724 { div span const padding function fill: 1904; }
/* vendor.js 1143 */ .c806 { stroke path color margin: 1240; }
/* vendor.js 1144 */ .c767 { display const width margin margin width span: 3355; }
/* vendor.js 1145 */ .c823 { span fill padding let flex path div: 1367; }
/* vendor.js 1146 */ .c587 { flex function grid: 1934; }
/* vendor.js 1147 */ .c957 { display display stroke: 127; }
/* vendor.js 1148 */ .c750 { margin div let fill: 994; }
/* vendor.js 1149 */ .c528 { grid height span const function: 424; }
/* vendor.js 1150 */ .c872 { flex color span: 826; }
/* vendor.js 1151 */ .c71 { margin height grid let display fill margin: 2069; }
/* vendor.js 1152 */ .c265 { height width return div span return padding: 2267; }
/* vendor.js 1153 */ .c843 { display fill height span return flex path path: 2284; }
/* vendor.js 1154 */ .c205 { function span padding margin display div const: 1343; }
/* vendor.js 1155 */ .c414 { const height div path let: 1891; }
/* vendor.js 1156 */ .c427 { color fill width color width: 3340; }
/* vendor.js 1157 */ .c255 { span display let function display: 1100; }
/* vendor.js 1158 */ .c881 { grid fill div fill div color: 1822; }
/* vendor.js 1159 */ .c911 { let fill flex span: 2778; }
/* vendor.js 1160 */ .c11 { fill div margin div flex span: 3781; }
/* vendor.js 1161 */ .c9 { function span span padding display: 2676; }
/* vendor.js 1162 */ .c917 { path stroke const const div: 324; }
/* vendor.js 1163 */ .c379 { const color height stroke path const height function span: 2621; }
/* vendor.js 1164 */ .c540 { const margin margin grid path padding: 824; }
/* vendor.js 1165 */ .c410 { let padding margin fill width padding: 2355; }
/* vendor.js 1166 */ .c41 { flex fill display display display const let flex display: 2257; }
/* vendor.js 1167 */ .c786 { let height height function let height path: 1557; }
/* vendor.js 1168 */ .c590 { display color div margin path: 1525; }
/* vendor.js 1169 */ .c531 { width function flex color flex div grid path color: 839; }
/* vendor.js 1170 */ .c940 { height color span: 877; }
/* vendor.js 1171 */ .c480 { div path let grid: 2917; }
/* vendor.js 1172 */ .c909 { let div function: 969; }
/* vendor.js 1173 */ .c224 { const let div path margin path color height grid: 1099; }
/* vendor.js 1174 */ .c3 { stroke const grid div: 3193; }
/* vendor.js 1175 */ .c843 { fill const let: 2309; }
/* vendor.js 1176 */ .c311 { fill const function let function span grid function padding: 2529; }
/* vendor.js 1177 */ .c81 { function div const color display padding: 4067; }
/* vendor.js 1178 */ .c652 { padding const grid flex color const: 2393; }
/* vendor.js 1179 */ .c310 { function grid return width display: 3374; }
/* vendor.js 1180 */ .c487 { width height height let: 1396; }
/* vendor.js 1181 */ .c614 { color stroke div fill path let span: 2860; }
/* vendor.js 1182 */ .c246 { height stroke const span stroke display stroke: 820; }
/* vendor.js 1183 */ .c694 { let function color function function grid: 2888; }
/* vendor.js 1184 */ .c759 { color height return margin stroke let padding: 3002; }
/* vendor.js 1185 */ .c61 { span padding grid return: 1877; }
/* vendor.js 1186 */ .c731 { return stroke stroke display span let color color: 3748; }
/* vendor.js 1187 */ .c952 { height function span width return width display return flex: 1677; }
/* vendor.js 1188 */ .c538 { display fill stroke color display padding grid function: 1440; }
/* vendor.js 1189 */ .c483 { div let color function width path return: 2782; }
/* vendor.js 1190 */ .c704 { return display return: 2827; }
/* vendor.js 1191 */ .c497 { padding const stroke margin display: 877; }
/* vendor.js 1192 */ .c809 { path margin const path div span stroke height return: 2377; }
/* vendor.js 1193 */ .c232 { path color return width color: 3388; }
/* vendor.js 1194 */ .c270 { color color fill path: 3333; }
/* vendor.js 1195 */ .c524 { fill return function grid fill: 1442; }
/* vendor.js 1196 */ .c858 { display color fill: 1160; }
/* vendor.js 1197 */ .c111 { flex color padding stroke width grid const padding margin: 1028; }
/* vendor.js 1198 */ .c359 { return function padding width grid grid flex display padding: 851; }
/* vendor.js 1199 */ .c417 { height color padding display height stroke fill padding: 1588; }
/* vendor.js 1200 */ .c137 { const let padding function flex display width: 1151; }
/* vendor.js 1201 */ .c189 { width div grid path color height grid flex stroke: 440; }
/* vendor.js 1202 */ .c826 { const padding grid margin: 1856; }
/* vendor.js 1203 */ .c674 { color color return: 8; }
/* vendor.js 1204 */ .c303 { height stroke margin padding stroke padding path: 1335; }
/* vendor.js 1205 */ .c546 { grid let span stroke flex padding color: 2720; }
/* vendor.js 1206 */ .c461 { span fill height margin path span: 948; }
/* vendor.js 1207 */ .c967 { function span fill display: 837; }
/* vendor.js 1208 */ .c115 { color flex div height padding margin const stroke padding: 3659; }
/* vendor.js 1209 */ .c44 { stroke function span flex width margin height path: 652; }
/* vendor.js 1210 */ .c26 { width span height const div flex path: 2991; }
/* vendor.js 1211 */ .c787 { function fill color function width: 303; }
/* vendor.js 1212 */ .c294 { width span width flex color height div const color: 1735; }
/* vendor.js 1213 */ .c426 { padding margin span: 71; }
/* vendor.js 1214 */ .c572 { div path span return stroke return display path span: 271; }
/* vendor.js 1215 */ .c590 { color stroke span stroke: 3725; }
/* vendor.js 1216 */ .c413 { height height fill display flex: 161; }
/* vendor.js 1217 */ .c41 { width flex function height display: 1626; }
/* vendor.js 1218 */ .c793 { color fill return color stroke function grid margin path: 665; }
/* vendor.js 1219 */ .c367 { fill width height div const width height: 301; }
/* vendor.js 1220 */ .c410 { stroke return flex fill div grid height width: 1854; }
/* vendor.js 1221 */ .c880 { span margin color flex: 1101; }
/* vendor.js 1222 */ .c88 { let const color stroke: 2909; }
/* vendor.js 1223 */ .c362 { color fill return width return: 1935; }
/* vendor.js 1224 */ .c945 { div padding let stroke flex flex: 3216; }
/* vendor.js 1225 */ .c776 { grid path let height width display height height: 2091; }
/* vendor.js 1226 */ .c169 { stroke flex width: 236; }
/* vendor.js 1227 */ .c640 { return flex height width margin padding function fill: 693; }
/* vendor.js 1228 */ .c177 { function path color: 3459; }
/* vendor.js 1229 */ .c336 { stroke display path margin height function display stroke return: 2133; }
/* vendor.js 1230 */ .c581 { display width padding span return margin height color: 213; }
/* vendor.js 1231 */ .c891 { padding function padding: 2082; }
/* vendor.js 1232 */ .c498 { path height span div width display fill let: 2940; }
/* vendor.js 1233 */ .c738 { fill return div fill: 740; }
/* vendor.js 1234 */ .c587 { flex color padding stroke flex: 2182; }
/* vendor.js 1235 */ .c623 { return fill div height margin path: 2136; }
/* vendor.js 1236 */ .c655 { function let span flex width function width grid flex: 3379; }
/* vendor.js 1237 */ .c821 { let margin flex fill function div: 3722; }
/* vendor.js 1238 */ .c643 { color margin let span stroke display function grid path: 1236; }
/* vendor.js 1239 */ .c320 { let flex margin: 894; }
/* vendor.js 1240 */ .c705 { div margin span height display: 1161; }
/* vendor.js 1241 */ .c677 { width path return: 1451; }
/* vendor.js 1242 */ .c74 { div margin margin function width path return margin path: 1045; }
/* vendor.js 1243 */ .c990 { fill height padding margin: 2915; }
/* vendor.js 1244 */ .c719 { color div function color path path div padding padding: 2418; }
/* vendor.js 1245 */ .c806 { path height span display span div: 3264; }
/* vendor.js 1246 */ .c480 { const const div const height const height: 2505; }
/* vendor.js 1247 */ .c919 { width width span span width grid return const stroke: 2718; }
/* vendor.js 1248 */ .c9 { height fill span: 1879; }
/* vendor.js 1249 */ .c60 { flex fill path flex const: 2712; }
/* vendor.js 1250 */ .c376 { color return span: 590; }
/* vendor.js 1251 */ .c397 { padding margin let: 3082; }
/* vendor.js 1252 */ .c237 { color flex fill div function: 2560; }
/* vendor.js 1253 */ .c561 { div function path margin height: 2805; }
/* vendor.js 1254 */ .c192 { fill stroke display: 2917; }
/* vendor.js 1255 */ .c414 { color return div function flex: 4095; }
/* vendor.js 1256 */ .c916 { stroke span function stroke height function: 922; }
/* vendor.js 1257 */ .c487 { return stroke height height let width: 1306; }
/* vendor.js 1258 */ .c14 { fill width height grid path margin return let: 660; }
/* vendor.js 1259 */ .c740 { span path color stroke grid div const: 1111; }
/* vendor.js 1260 */ .c87 { fill width div const grid: 70; }
/* vendor.js 1261 */ .c538 { height fill let: 3512; }
/* vendor.js 1262 */ .c564 { return div path width: 1009; }
/* vendor.js 1263 */ .c672 { height const fill display stroke grid: 3770; }
/* vendor.js 1264 */ .c704 { fill flex flex div div padding: 343; }
/* vendor.js 1265 */ .c41 { path grid padding margin span padding div const: 1328; }
/* vendor.js 1266 */ .c784 { fill path width width: 2446; }
/* vendor.js 1267 */ .c488 { let let color stroke padding let span: 332; }
/* vendor.js 1268 */ .c467 { fill div const flex const width: 1314; }
/* vendor.js 1269 */ .c545 { flex flex display display return width: 2925; }
/* vendor.js 1270 */ .c248 { height color color display: 537; }
/* vendor.js 1271 */ .c397 { padding fill function path width: 513; }
/* vendor.js 1272 */ .c427 { width height fill span let let height width: 3981; }
/* vendor.js 1273 */ .c881 { padding span margin div stroke width fill let span: 3925; }
/* vendor.js 1274 */ .c953 { display color let fill return color stroke: 941; }
/* vendor.js 1275 */ .c261 { span stroke span stroke padding: 3611; }
/* vendor.js 1276 */ .c218 { function display return padding: 1048; }
/* vendor.js 1277 */ .c13 { flex fill color display path fill: 1149; }
/* vendor.js 1278 */ .c23 { stroke display color path: 3851; }
/* vendor.js 1279 */ .c460 { padding function let margin margin display function display: 204; }
/* vendor.js 1280 */ .c290 { display span path width padding: 3882; }
/* vendor.js 1281 */ .c323 { height div display height: 11; }
/* vendor.js 1282 */ .c876 { grid color let let width: 119; }
/* vendor.js 1283 */ .c337 { display padding display: 3827; }
/* vendor.js 1284 */ .c155 { return color display grid: 2065; }
/* vendor.js 1285 */ .c632 { height span return: 690; }
/* vendor.js 1286 */ .c216 { return span let: 2732; }
/* vendor.js 1287 */ .c710 { let flex function padding const path flex padding: 3755; }
/* vendor.js 1288 */ .c9 { function fill color height: 2577; }
/* vendor.js 1289 */ .c779 { color margin path display div flex padding let span: 772; }
/* vendor.js 1290 */ .c34 { flex const return: 196; }
/* vendor.js 1291 */ .c644 { margin grid return: 614; }
/* vendor.js 1292 */ .c9 { grid function flex span let: 2728; }
/* vendor.js 1293 */ .c627 { div height width span const function: 1068; }
/* vendor.js 1294 */ .c936 { stroke let margin function let fill: 3450; }
/* vendor.js 1295 */ .c57 { grid return height let return grid: 2524; }
/* vendor.js 1296 */ .c76 { path span stroke grid: 2319; }
/* vendor.js 1297 */ .c208 { width fill function return flex width const display stroke: 14; }
/* vendor.js 1298 */ .c301 { path return grid padding: 1566; }
/* vendor.js 1299 */ .c785 { div grid span padding span: 1117; }
/* vendor.js 1300 */ .c601 { stroke stroke flex display fill color div span: 3595; }
/* vendor.js 1301 */ .c987 { return grid return: 1583; }
/* vendor.js 1302 */ .c911 { display width div: 1871; }
/* vendor.js 1303 */ .c57 { path span path margin return path: 1403; }
/* vendor.js 1304 */ .c156 { const flex span margin span padding: 3901; }
/* vendor.js 1305 */ .c288 { display margin flex path height margin div height: 498; }
/* vendor.js 1306 */ .c902 { padding padding let fill: 1097; }
/* vendor.js 1307 */ .c710 { margin grid function color div: 3719; }
/* vendor.js 1308 */ .c301 { div span margin fill return width margin width let: 2457; }
/* vendor.js 1309 */ .c797 { div grid div: 2587; }
/* vendor