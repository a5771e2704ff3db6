/* app.js 0 */ .c646 { margin flex let: 175; }
/* app.js 1 */ .c192 { color function color padding margin const: 1416; }
/* app.js 2 */ .c51 { flex span padding let flex color const margin: 1913; }
/* app.js 3 */ .c523 { fill return grid margin: 3827; }
/* app.js 4 */ .c601 { padding grid width function stroke span: 2770; }
/* app.js 5 */ .c6 { stroke fill return span stroke width width: 1537; }
/* app.js 6 */ .c782 { const flex div stroke padding: 1528; }
/* app.js 7 */ .c605 { return stroke fill grid color: 324; }
/* app.js 8 */ .c385 { div width let function function height height: 2004; }
/* app.js 9 */ .c248 { return div let function div path function: 681; }
/* app.js 10 */ .c325 { width color span color display stroke width span: 613; }
/* app.js 11 */ .c920 { height const return grid span div height height color: 1358; }
/* app.js 12 */ .c338 { const const const padding fill const stroke fill: 236; }
/* app.js 13 */ .c177 { color grid return fill width: 968; }
/* app.js 14 */ .c182 { flex margin stroke: 684; }
/* app.js 15 */ .c861 { display grid margin fill function const span: 3593; }
/* app.js 16 */ .c65 { width stroke width stroke function flex div div: 3740; }
/* app.js 17 */ .c265 { path function path div display let grid: 163; }
/* app.js 18 */ .c945 { color color path flex: 2027; }
/* app.js 19 */ .c930 { color let span height grid path: 943; }
/* app.js 20 */ .c80 { path span return margin flex const path: 238; }
/* app.js 21 */ .c214 { span span path flex grid color const: 3814; }
/* app.js 22 */ .c495 { height color stroke function: 1841; }
/* app.js 23 */ .c326 { margin margin flex color padding return: 2584; }
/* app.js 24 */ .c507 { flex fill width grid padding function span const div: 1120; }
/* app.js 25 */ .c778 { let margin span width margin: 1902; }
/* app.js 26 */ .c301 { padding let color width: 560; }
/* app.js 27 */ .c135 { flex color margin div: 1213; }
/* app.js 28 */ .c735 { padding const color return grid return return return: 2348; }
/* app.js 29 */ .c393 { fill return grid path grid color path: 1273; }
/* app.js 30 */ .c67 { flex height grid const color width return width: 2651; }
/* app.js 31 */ .c147 { width grid stroke: 3253; }
/* app.js 32 */ .c43 { path flex margin color const return function path function: 299; }
/* app.js 33 */ .c865 { stroke display fill grid fill const: 149; }
/* app.js 34 */ .c155 { function margin return: 1674; }
/* app.js 35 */ .c635 { width function color height const function span path: 135; }
/* app.js 36 */ .c126 { path display fill let margin let flex const width: 2941; }
/* app.js 37 */ .c647 { return color margin path path padding color grid: 2079; }
/* app.js 38 */ .c287 { path grid flex span stroke return: 1520; }
/* app.js 39 */ .c655 { stroke stroke const path: 574; }
/* app.js 40 */ .c76 { fill color stroke padding: 399; }
/* app.js 41 */ .c446 { grid grid fill const path height flex div: 3148; }
/* app.js 42 */ .c257 { const fill padding padding div: 3093; }
/* app.js 43 */ .c58 { let display div grid padding display: 1496; }
/* app.js 44 */ .c386 { width div fill padding stroke flex width function const: 1372; }
/* app.js 45 */ .c334 { return span path flex width path: 1879; }
/* app.js 46 */ .c586 { display function padding: 1746; }
/* app.js 47 */ .c637 { const const padding display let display: 25; }
/* app.js 48 */ .c229 { margin grid stroke color padding padding return: 1614; }
/* app.js 49 */ .c58 { margin stroke return fill return grid span: 2912; }
/* app.js 50 */ .c996 { padding span margin return width path: 1765; }
/* app.js 51 */ .c556 { width function color span let flex margin height: 3280; }
/* app.js 52 */ .c793 { path flex grid color function span padding: 2321; }
/* app.js 53 */ .c157 { path display stroke padding: 414; }
/* app.js 54 */ .c975 { grid stroke color grid: 1409; }
/* app.js 55 */ .c49 { grid div return flex span function flex: 1440; }
/* app.js 56 */ .c307 { padding return padding: 1155; }
/* app.js 57 */ .c184 { margin color stroke padding fill margin flex: 653; }
/* app.js 58 */ .c851 { padding div width: 3686; }
/* app.js 59 */ .c23 { function width flex height return return let fill width: 2431; }
/* app.js 60 */ .c847 { width stroke const path grid color color display div: 1785; }
/* app.js 61 */ .c639 { margin flex div margin height div: 2046; }
/* app.js 62 */ .c711 { grid const height span const div color fill stroke: 1386; }
/* app.js 63 */ .c119 { span span let function const span: 2907; }
/* app.js 64 */ .c580 { color grid function color height height function: 2000; }
/* app.js 65 */ .c669 { stroke const function function: 4029; }
/* app.js 66 */ .c543 { color span let margin margin: 3123; }
/* app.js 67 */ .c835 { fill let span grid grid flex display display flex: 1476; }
/* app.js 68 */ .c421 { span padding return span: 3404; }
/* app.js 69 */ .c594 { function stroke path margin span stroke path display span: 871; }
/* app.js 70 */ .c805 { stroke let flex fill let: 3942; }
/* app.js 71 */ .c143 { stroke grid const span const path: 2615; }
/* app.js 72 */ .c78 { color height flex: 1713; }
/* app.js 73 */ .c845 { width div width: 3451; }
/* app.js 74 */ .c861 { div return padding let: 695; }
/* app.js 75 */ .c225 { padding margin stroke: 2608; }
/* app.js 76 */ .c976 { div flex grid let function: 634; }
/* app.js 77 */ .c288 { path div width div color let padding: 3464; }
/* app.js 78 */ .c743 { const grid flex: 3713; }
/* app.js 79 */ .c37 { function div flex flex span fill stroke fill path: 2782; }
/* app.js 80 */ .c241 { flex const path: 2401; }
/* app.js 81 */ .c991 { fill span path stroke stroke fill: 698; }
/* app.js 82 */ .c407 { let width let width display grid display flex height: 1457; }
/* app.js 83 */ .c532 { span color display fill height margin return fill color: 750; }
/* app.js 84 */ .c495 { stroke padding const span div flex grid return margin: 1355; }
/* app.js 85 */ .c307 { let const function function stroke padding: 2683; }
/* app.js 86 */ .c49 { width stroke width: 2987; }
/* app.js 87 */ .c73 { width span margin span const grid: 630; }
/* app.js 88 */ .c230 { let fill fill div function height function flex path: 682; }
/* app.js 89 */ .c94 { grid color height span return let: 1327; }
/* app.js 90 */ .c265 { span stroke const path padding let: 21; }
/* app.js 91 */ .c305 { color let path let const: 2925; }
/* app.js 92 */ .c391 { width let function stroke const const const let: 304; }
/* app.js 93 */ .c648 { margin flex span path span return display padding return: 3061; }
/* app.js 94 */ .c609 { fill div div let padding function function stroke path: 3191; }
/* app.js 95 */ .c347 { padding function padding height return function padding path const: 3718; }
/* app.js 96 */ .c808 { path let flex height const: 1345; }
/* app.js 97 */ .c54 { height stroke function margin fill padding div color div: 1540; }
/* app.js 98 */ .c110 { fill width return width display span fill color span: 2705; }
/* app.js 99 */ .c136 { const padding flex: 967; }
/* app.js 100 */ .c318 { div grid stroke path: 90; }
/* app.js 101 */ .c39 { stroke grid span width stroke width stroke path display: 2902; }
/* app.js 102 */ .c977 { grid div width fill margin span flex padding: 2873; }
/* app.js 103 */ .c753 { const padding path let: 3310; }
/* app.js 104 */ .c996 { padding grid padding const return path div span: 3682; }
/* app.js 105 */ .c55 { span padding padding flex display display grid: 217; }
/* app.js 106 */ .c462 { flex margin fill div return height return const stroke: 3596; }
/* app.js 107 */ .c882 { margin padding let const let return: 2234; }
/* app.js 108 */ .c833 { function span display function const: 3393; }
/* app.js 109 */ .c11 { fill grid return path: 2656; }
/* app.js 110 */ .c491 { display fill flex height width return: 536; }
/* app.js 111 */ .c233 { color let function div span return path flex let: 2103; }
/* app.js 112 */ .c241 { stroke function const const color const: 2533; }
/* app.js 113 */ .c665 { display display function return const span const grid: 1254; }
/* app.js 114 */ .c486 { stroke display height grid const const: 3760; }
/* app.js 115 */ .c518 { div padding padding const: 1227; }
/* app.js 116 */ .c466 { grid stroke padding div: 1889; }
/* app.js 117 */ .c23 { display path function display: 2911; }
/* app.js 118 */ .c472 { color div let width width function flex: 2441; }
/* app.js 119 */ .c784 { height const fill display let: 1856; }
/* app.js 120 */ .c3 { fill function flex const const function fill span margin: 3907; }
/* app.js 121 */ .c111 { flex span return display flex: 276; }
/* app.js 122 */ .c885 { let padding padding span color div: 3654; }
/* app.js 123 */ .c667 { margin stroke padding height height: 450; }
/* app.js 124 */ .c440 { flex fill height flex span path: 833; }
/* app.js 125 */ .c462 { let path return path: 3115; }
/* app.js 126 */ .c489 { width fill color flex padding return flex padding: 3008; }
/* app.js 127 */ .c802 { return width padding fill: 3832; }
/* app.js 128 */ .c474 { function color const width return: 2812; }
/* app.js 129 */ .c679 { const flex color color padding flex fill height flex: 1553; }
/* app.js 130 */ .c620 { path return path display fill span stroke stroke fill: 854; }
/* app.js 131 */ .c348 { stroke margin fill padding padding path padding stroke fill: 473; }
/* app.js 132 */ .c130 { stroke width function fill width color display: 2626; }
/* app.js 133 */ .c903 { display path return padding return div let const: 3036; }
/* app.js 134 */ .c432 { const height const flex flex function: 3438; }
/* app.js 135 */ .c700 { let return grid function function return margin flex: 374; }
/* app.js 136 */ .c893 { div height grid flex stroke div function display return: 2433; }
/* app.js 137 */ .c978 { fill let color color let return color grid: 1838; }
/* app.js 138 */ .c378 { width span margin div path padding: 1966; }
/* app.js 139 */ .c78 { width margin width span height: 528; }
/* app.js 140 */ .c528 { grid padding stroke display span function return grid function: 2975; }
/* app.js 141 */ .c283 { width color width div fill const: 3279; }
/* app.js 142 */ .c187 { display margin const span display padding: 4001; }
/* app.js 143 */ .c243 { width path return fill width span stroke: 181; }
/* app.js 144 */ .c412 { color color stroke color return flex padding: 329; }
/* app.js 145 */ .c452 { const div grid const grid path display grid: 2129; }
/* app.js 146 */ .c522 { width span return padding color span function grid: 2634; }
/* app.js 147 */ .c977 { height width grid: 1998; }
/* app.js 148 */ .c127 { const span return div: 2652; }
/* app.js 149 */ .c927 { grid height function grid stroke span function path: 357; }
/* app.js 150 */ .c307 { height function fill div padding span: 1854; }
/* app.js 151 */ .c498 { padding padding height const function const flex span: 786; }
/* app.js 152 */ .c242 { margin const const span path flex const: 1494; }
/* app.js 153 */ .c176 { flex stroke return return margin span margin span padding: 698; }
/* app.js 154 */ .c610 { const let padding function stroke margin: 1870; }
/* app.js 155 */ .c634 { color height grid fill span color width stroke div: 689; }
/* app.js 156 */ .c675 { flex path padding span flex const stroke fill fill: 1551; }
/* app.js 157 */ .c886 { padding path grid return span padding span div: 2509; }
/* app.js 158 */ .c305 { padding div stroke const: 59; }
/* app.js 159 */ .c289 { padding fill padding span let fill: 3552; }
/* app.js 160 */ .c101 { function padding path const padding const flex: 297; }
/* app.js 161 */ .c814 { div const let fill width padding div flex display: 56; }
/* app.js 162 */ .c156 { span span padding grid fill color flex function fill: 6; }
/* app.js 163 */ .c446 { fill fill let div: 1282; }
/* app.js 164 */ .c296 { function flex grid padding padding stroke display height function: 1466; }
/* app.js 165 */ .c61 { return color margin let function flex: 1479; }
/* app.js 166 */ .c523 { margin span display margin span height grid: 222; }
/* app.js 167 */ .c81 { color fill path stroke margin fill height: 745; }
/* app.js 168 */ .c394 { color div height: 2406; }
/* app.js 169 */ .c648 { return margin stroke margin: 1576; }
/* app.js 170 */ .c102 { return height grid padding display let const display let: 2604; }
/* app.js 171 */ .c656 { display padding margin fill margin color: 1263; }
/* app.js 172 */ .c161 { flex let path grid color let path: 1079; }
/* app.js 173 */ .c540 { div height path width function: 2326; }
/* app.js 174 */ .c416 { stroke let margin margin span function color path: 3339; }
/* app.js 175 */ .c242 { width height padding return return stroke: 490; }
/* app.js 176 */ .c564 { stroke fill fill: 2936; }
/* app.js 177 */ .c657 { padding span fill div path: 3252; }
/* app.js 178 */ .c657 { width padding grid: 2795; }
/* app.js 179 */ .c341 { let margin path display fill height path display const: 617; }
/* app.js 180 */ .c765 { padding height padding: 2410; }
/* app.js 181 */ .c191 { display function display flex margin: 2180; }
/* app.js 182 */ .c23 { padding height height padding div color const: 2059; }
/* app.js 183 */ .c182 { fill fill path fill const color width: 715; }
/* app.js 184 */ .c233 { return height margin const: 3612; }
/* app.js 185 */ .c368 { height color width return height stroke display color: 2748; }
/* app.js 186 */ .c795 { const display stroke flex padding padding: 3010; }
/* app.js 187 */ .c381 { let grid div: 2018; }
/* app.js 188 */ .c86 { flex display div const: 1260; }
/* app.js 189 */ .c852 { color flex return width stroke: 1343; }
/* app.js 190 */ .c690 { flex display width flex height span: 3406; }
/* app.js 191 */ .c457 { div span padding span height div: 283; }
/* app.js 192 */ .c309 { color grid flex color: 2870; }
/* app.js 193 */ .c960 { return span margin div: 1250; }
/* app.js 194 */ .c817 { display display span height span width stroke span display: 3736; }
/* app.js 195 */ .c674 { fill padding path const let padding div return: 3234; }
/* app.js 196 */ .c981 { margin path width fill let stroke const path: 2199; }
/* app.js 197 */ .c876 { grid margin return: 3995; }
/* app.js 198 */ .c1 { div display let grid color: 1663; }
/* app.js 199 */ .c305 { height padding function width flex function div: 2282; }
/* app.js 200 */ .c386 { return const stroke display function: 1148; }
/* app.js 201 */ .c154 { grid flex div flex let grid padding: 124; }
/* app.js 202 */ .c834 { fill color return display const function stroke grid: 3878; }
/* app.js 203 */ .c587 { color fill span let margin path display function grid: 3944; }
/* app.js 204 */ .c348 { margin let color span color display function margin grid: 2952; }
/* app.js 205 */ .c459 { grid flex const stroke function const const: 1646; }
/* app.js 206 */ .c845 { display display fill fill fill stroke color: 4068; }
/* app.js 207 */ .c355 { function flex const let flex span let: 746; }
/* app.js 208 */ .c628 { const div flex: 1736; }
/* app.js 209 */ .c830 { path path const return fill fill: 1052; }
/* app.js 210 */ .c722 { function span flex padding path: 3066; }
/* app.js 211 */ .c884 { color div display stroke return let: 3413; }
/* app.js 212 */ .c354 { path path grid const const margin color: 1090; }
/* app.js 213 */ .c718 { div display margin padding padding: 2127; }
/* app.js 214 */ .c816 { const const return div height path const: 668; }
/* app.js 215 */ .c802 { flex const flex function span: 1045; }
/* app.js 216 */ .c416 { display const div margin span: 708; }
/* app.js 217 */ .c942 { padding margin stroke let: 1946; }
/* app.js 218 */ .c311 { height margin path stroke color stroke padding margin grid: 3910; }
/* app.js 219 */ .c440 { width padding stroke return const display margin: 1176; }
/* app.js 220 */ .c68 { padding function div: 1810; }
/* app.js 221 */ .c960 { grid flex span: 1638; }
/* app.js 222 */ .c165 { width color stroke grid div: 3230; }
/* app.js 223 */ .c179 { const let function stroke stroke grid color: 1281; }
/* app.js 224 */ .c945 { fill div color grid function margin: 3306; }
/* app.js 225 */ .c928 { function color span flex function padding color fill margin: 532; }
/* app.js 226 */ .c9 { margin margin stroke fill span grid color padding: 3019; }
/* app.js 227 */ .c585 { display padding flex grid grid margin function return: 1568; }
/* app.js 228 */ .c275 { display span fill span width path height const: 1559; }
/* app.js 229 */ .c693 { fill return path const flex div color path: 1958; }
/* app.js 230 */ .c310 { span padding const color div: 3735; }
/* app.js 231 */ .c207 { margin color span: 1297; }
/* app.js 232 */ .c316 { color flex const path fill: 1691; }
/* app.js 233 */ .c473 { let width height: 1860; }
/* app.js 234 */ .c534 { padding function div path grid div div stroke color: 808; }
/* app.js 235 */ .c647 { stroke grid grid margin path color grid flex const: 899; }
/* app.js 236 */ .c734 { width return path: 2854; }
/* app.js 237 */ .c269 { display return span margin flex: 2285; }
/* app.js 238 */ .c882 { let color fill width div: 3082; }
/* app.js 239 */ .c716 { path const fill span display: 3654; }
/* app.js 240 */ .c132 { let path span margin let: 923; }
/* app.js 241 */ .c171 { div return return height div grid padding span: 2058; }
/* app.js 242 */ .c2 { height path padding return let div div height padding: 3379; }
/* app.js 243 */ .c936 { margin flex grid let flex: 344; }
/* app.js 244 */ .c877 { padding width width padding const: 1576; }
/* app.js 245 */ .c504 { padding span function span height return div div: 280; }
/* app.js 246 */ .c52 { grid grid const return padding display padding: 1566; }
/* app.js 247 */ .c431 { span fill color const const span return return margin: 2617; }
/* app.js 248 */ .c824 { path grid div grid flex stroke let path path: 821; }
/* app.js 249 */ .c895 { div span path path: 3816; }
/* app.js 250 */ .c334 { display width padding width flex: 1493; }
/* app.js 251 */ .c630 { color div fill grid color color span path display: 1769; }
/* app.js 252 */ .c35 { grid width span function color let width: 3148; }
/* app.js 253 */ .c352 { stroke let div flex: 3499; }
/* app.js 254 */ .c332 { flex margin stroke flex: 4064; }
/* app.js 255 */ .c322 { const flex height margin let fill const: 3481; }
/* app.js 256 */ .c11 { const color color padding width fill flex color: 328; }
/* app.js 257 */ .c194 { stroke fill span: 450; }
/* app.js 258 */ .c867 { width display span color path: 1981; }
/* app.js 259 */ .c445 { display height function padding fill grid height function: 1802; }
/* app.js 260 */ .c558 { fill const flex const span: 4080; }
/* app.js 261 */ .c848 { color div path flex return path fill: 3795; }
/* app.js 262 */ .c990 { let grid const div margin display: 648; }
/* app.js 263 */ .c15 { fill padding width height flex: 3785; }
/* app.js 264 */ .c716 { return width let path span function const padding: 1013; }
/* app.js 265 */ .c85 { flex flex padding display color let fill padding: 938; }
/* app.js 266 */ .c200 { grid stroke margin color: 1765; }
/* app.js 267 */ .c776 { color margin span height: 195; }
/* app.js 268 */ .c243 { padding grid color flex: 3355; }
/* app.js 269 */ .c693 { const span padding display: 3066; }
/* app.js 270 */ .c83 { let padding const width margin: 376; }
/* app.js 271 */ .c117 { display width const flex flex margin padding fill stroke: 371; }
/* app.js 272 */ .c691 { margin function flex: 2060; }
/* app.js 273 */ .c344 { color span padding flex div: 1242; }
/* app.js 274 */ .c53 { fill display function display stroke flex flex: 408; }
/* app.js 275 */ .c425 { padding grid const: 2493; }
/* app.js 276 */ .c793 { return let display height display function height let: 3690; }
/* app.js 277 */ .c695 { width function fill fill return margin span flex color: 1244; }
/* app.js 278 */ .c334 { grid stroke color margin margin fill path: 3893; }
/* app.js 279 */ .c716 { let margin margin margin display grid return: 3983; }
/* app.js 280 */ .c345 { const flex display function flex const grid let grid: 1187; }
/* app.js 281 */ .c224 { grid flex path width return padding stroke: 3888; }
/* app.js 282 */ .c644 { const let const span let margin width height color: 3218; }
/* app.js 283 */ .c457 { function grid function stroke path color margin: 2437; }
/* app.js 284 */ .c196 { fill fill fill path color path: 1566; }
/* app.js 285 */ .c239 { stroke height div: 3179; }
/* app.js 286 */ .c402 { display let flex flex path margin const path stroke: 2059; }
/* app.js 287 */ .c523 { return path flex: 2340; }
/* app.js 288 */ .c355 { let function fill height stroke return: 2648; }
/* app.js 289 */ .c958 { span margin function height: 978; }
/* app.js 290 */ .c587 { width div let padding padding function path path color: 657; }
/* app.js 291 */ .c525 { function margin div let return: 893; }
/* app.js 292 */ .c221 { stroke height span div function width: 2895; }
/* app.js 293 */ .c471 { padding path fill div width margin flex div stroke: 869; }
/* app.js 294 */ .c72 { grid const margin stroke margin: 1039; }
/* app.js 295 */ .c649 { padding margin display: 3754; }
/* app.js 296 */ .c31 { path span fill margin const color: 1118; }
/* app.js 297 */ .c244 { display const const return margin width div: 1047; }
/* app.js 298 */ .c846 { path height width const path function: 2309; }
/* app.js 299 */ .c354 { return color span margin fill function span flex span: 1441; }
/* app.js 300 */ .c143 { fill display display return return padding const function: 2599; }
/* app.js 301 */ .c12 { const padding width const flex return margin height function: 646; }
/* app.js 302 */ .c403 { padding height path flex fill path: 2871; }
/* app.js 303 */ .c433 { width span div stroke function height grid color flex: 1115; }
/* app.js 304 */ .c329 { display const path fill let height stroke padding: 1479; }
/* app.js 305 */ .c249 { const div path function stroke grid path: 1246; }
/* app.js 306 */ .c754 { div const return path margin width let grid: 1762; }
/* app.js 307 */ .c75 { div function padding margin height: 1970; }
/* app.js 308 */ .c245 { color height padding height const return: 2813; }
/* app.js 309 */ .c165 { div padding margin stroke div div: 1854; }
/* app.js 310 */ .c952 { width margin path padding let fill margin let grid: 1088; }
/* app.js 311 */ .c648 { path margin fill width grid const flex div: 4035; }
/* app.js 312 */ .c639 { display div span const display const: 3428; }
/* app.js 313 */ .c958 { flex fill grid height path fill fill stroke width: 1977; }
/* app.js 314 */ .c279 { fill return display margin div span return: 3411; }
/* app.js 315 */ .c145 { div color span return const grid width color color: 1832; }
/* app.js 316 */ .c744 { padding path span div width span span: 1861; }
/* app.js 317 */ .c203 { fill stroke return height flex grid: 1238; }
/* app.js 318 */ .c104 { return grid div fill stroke stroke stroke: 1541; }
/* app.js 319 */ .c206 { stroke path width: 3700; }
/* app.js 320 */ .c174 { display color stroke let padding path let color: 3599; }
/* app.js 321 */ .c369 { let margin width width let: 3958; }
/* app.js 322 */ .c677 { display display width color stroke: 3488; }
/* app.js 323 */ .c392 { div function grid function: 2763; }
/* app.js 324 */ .c896 { display stroke stroke: 2832; }
/* app.js 325 */ .c144 { width let path let flex margin padding margin: 244; }
/* app.js 326 */ .c857 { color padding width fill fill: 2601; }
/* app.js 327 */ .c517 { height const grid margin fill div: 3289; }
/* app.js 328 */ .c187 { return return const grid width const div padding: 656; }
/* app.js 329 */ .c684 { margin fill let padding: 3583; }
/* app.js 330 */ .c695 { const const width margin height height let: 1885; }
/* app.js 331 */ .c996 { flex div margin width fill const return stroke color: 1300; }
/* app.js 332 */ .c458 { grid color stroke span flex return let fill fill: 40; }
/* app.js 333 */ .c310 { grid fill height function path span: 3512; }
/* app.js 334 */ .c731 { width flex div flex color grid let height height: 1474; }
/* app.js 335 */ .c619 { stroke width fill: 822; }
/* app.js 336 */ .c484 { width path path span let let stroke: 3809; }
/* app.js 337 */ .c925 { function width return div const: 3504; }
/* app.js 338 */ .c108 { flex padding div path width: 599; }
/* app.js 339 */ .c394 { stroke div let: 513; }
/* app.js 340 */ .c373 { const width display display stroke: 2717; }
/* app.js 341 */ .c294 { let flex path padding const stroke width flex: 2937; }
/* app.js 342 */ .c97 { return flex width grid fill padding padding margin padding: 2264; }
/* app.js 343 */ .c296 { flex const flex function margin height height display: 1364; }
/* app.js 344 */ .c70 { stroke grid color const const path stroke display: 1055; }
/* app.js 345 */ .c181 { span function padding function const height: 1327; }
/* app.js 346 */ .c298 { color fill fill grid return margin: 275; }
/* app.js 347 */ .c746 { padding color path stroke grid height const: 3828; }
/* app.js 348 */ .c303 { flex grid flex function: 213; }
/* app.js 349 */ .c19 { span div let height height padding div: 41; }
/* app.js 350 */ .c760 { stroke color path const margin const: 1200; }
/* app.js 351 */ .c779 { padding span path fill color width: 1306; }
/* app.js 352 */ .c632 { height color stroke flex: 1728; }
/* app.js 353 */ .c655 { function margin span: 714; }
/* app.js 354 */ .c83 { fill span width fill function: 2315; }
/* app.js 355 */ .c302 { width height stroke return stroke let: 1074; }
/* app.js 356 */ .c308 { path padding flex const width return margin fill: 1428; }
/* app.js 357 */ .c590 { div padding return span: 3054; }
/* app.js 358 */ .c166 { flex function div fill padding flex return: 3218; }
/* app.js 359 */ .c622 { margin const span return display height const const height: 4006; }
/* app.js 360 */ .c975 { fill margin span fill: 879; }
/* app.js 361 */ .c671 { width fill div flex: 3743; }
/* app.js 362 */ .c926 { fill function margin stroke span margin let: 2623; }
/* app.js 363 */ .c913 { grid path div width display div height path: 417; }
/* app.js 364 */ .c799 { margin height stroke width grid return flex: 2814; }
/* app.js 365 */ .c702 { const grid return: 3057; }
/* app.js 366 */ .c286 { grid padding fill let let: 3413; }
/* app.js 367 */ .c107 { height margin function: 2414; }
/* app.js 368 */ .c114 { const function padding: 3844; }
/* app.js 369 */ .c469 { margin return margin stroke: 1647; }
/* app.js 370 */ .c124 { width grid span height padding span grid: 1824; }
/* app.js 371 */ .c962 { return display padding stroke color: 827; }
/* app.js 372 */ .c94 { grid margin color stroke grid margin padding path: 2509; }
/* app.js 373 */ .c271 { path let let height span display return padding margin: 618; }
/* app.js 374 */ .c998 { function span stroke height function color const: 309; }
/* app.js 375 */ .c726 { const height fill function path return let span flex: 1868; }
/* app.js 376 */ .c557 { flex width fill path span: 2939; }
/* app.js 377 */ .c173 { stroke function fill return height span color: 1396; }
/* app.js 378 */ .c794 { grid display span const const fill display flex: 2686; }
/* app.js 379 */ .c526 { width path path color: 2057; }
/* app.js 380 */ .c433 { span return color fill flex flex: 3116; }
/* app.js 381 */ .c710 { display path grid height color display: 3666; }
/* app.js 382 */ .c279 { const color path: 1159; }
/* app.js 383 */ .c726 { grid div div function grid flex span: 1799; }
/* app.js 384 */ .c210 { padding function color grid: 1415; }
/* app.js 385 */ .c837 { margin height height stroke padding let div: 1661; }
/* app.js 386 */ .c445 { height div color width fill const height padding: 1866; }
/* app.js 387 */ .c585 { height function margin height span: 862; }
/* app.js 388 */ .c495 { padding width let padding: 3259; }
/* app.js 389 */ .c924 { path height path height span padding function let: 3674; }
/* app.js 390 */ .c877 { margin const let color: 3847; }
/* app.js 391 */ .c535 { function let span let stroke let height: 538; }
/* app.js 392 */ .c835 { div let div grid: 77; }
/* app.js 393 */ .c178 { return height let color display flex stroke color fill: 1681; }
/* app.js 394 */ .c359 { const div stroke stroke display: 2204; }
/* app.js 395 */ .c211 { color display div const div function path div: 3165; }
/* app.js 396 */ .c121 { fill span span height: 2756; }
/* app.js 397 */ .c673 { path function let: 3766; }
/* app.js 398 */ .c781 { let height color grid width div padding div: 3785; }
/* app.js 399 */ .c226 { fill padding stroke color: 1820; }
/* app.js 400 */ .c802 { path flex grid return span margin fill: 3819; }
/* app.js 401 */ .c288 { height grid width color margin path: 3933; }
/* app.js 402 */ .c84 { padding path let: 3286; }
/* app.js 403 */ .c337 { color grid padding return color margin color fill: 1209; }
/* app.js 404 */ .c562 { function margin div display margin let const grid div: 3068; }
/* app.js 405 */ .c316 { return color let div: 380; }
/* app.js 406 */ .c499 { span let padding: 570; }
/* app.js 407 */ .c839 { width width return color div function div color width: 586; }
/* app.js 408 */ .c51 { width div color flex path padding return: 3701; }
/* app.js 409 */ .c862 { height padding return padding: 2959; }
/* app.js 410 */ .c237 { span grid return: 2465; }
/* app.js 411 */ .c585 { fill padding div grid height flex return height return: 571; }
/* app.js 412 */ .c532 { grid return function height width: 2340; }
/* app.js 413 */ .c424 { grid div stroke: 2722; }
/* app.js 414 */ .c473 { flex grid const height span color stroke: 2986; }
/* app.js 415 */ .c7 { flex stroke fill function height padding: 2889; }
/* app.js 416 */ .c582 { flex const span color padding flex: 131; }
/* app.js 417 */ .c98 { height width margin return stroke color function path: 794; }
/* app.js 418 */ .c514 { flex div return: 1789; }
/* app.js 419 */ .c995 { stroke grid div padding fill flex: 1795; }
/* app.js 420 */ .c661 { div grid path: 3941; }
/* app.js 421 */ .c101 { function display return: 2416; }
/* app.js 422 */ .c203 { display padding height padding: 2830; }
/* app.js 423 */ .c599 { fill stroke return: 517; }
/* app.js 424 */ .c81 { let padding function: 1880; }
/* app.js 425 */ .c84 { stroke span let let function width height function height: 2842; }
/* app.js 426 */ .c79 { path display margin color padding: 1091; }
/* app.js 427 */ .c591 { stroke div return flex return grid: 364; }
/* app.js 428 */ .c58 { return path flex fill div: 2110; }
/* app.js 429 */ .c616 { flex const grid padding path function fill: 1308; }
/* app.js 430 */ .c463 { grid function margin height span span display: 1488; }
/* app.js 431 */ .c361 { path function function div stroke const display: 3852; }
/* app.js 432 */ .c669 { span let grid let margin fill flex display: 3664; }
/* app.js 433 */ .c203 { stroke const function height function height stroke: 2118; }
/* app.js 434 */ .c135 { display grid color return div function: 532; }
/* app.js 435 */ .c820 { grid grid fill margin grid grid margin: 2797; }
/* app.js 436 */ .c87 { div stroke div width: 2033; }
/* app.js 437 */ .c924 { stroke display let return: 3143; }
/* app.js 438 */ .c421 { let path flex: 7; }
/* app.js 439 */ .c935 { let margin function padding function const path: 3182; }
/* app.js 440 */ .c321 { return span return display margin flex: 1663; }
/* app.js 441 */ .c932 { color stroke span let: 3578; }
/* app.js 442 */ .c608 { fill margin fill padding flex: 3075; }
/* app.js 443 */ .c148 { stroke margin display padding height div: 2677; }
/* app.js 444 */ .c124 { width padding div const: 1098; }
/* app.js 445 */ .c645 { return span color display stroke path span: 2643; }
/* app.js 446 */ .c895 { let stroke grid const height: 2060; }
/* app.js 447 */ .c55 { div div div function display height return padding display: 3337; }
/* app.js 448 */ .c487 { let padding let width fill div: 3895; }
/* app.js 449 */ .c263 { flex width return display height span: 1119; }
/* app.js 450 */ .c902 { function display path fill function function: 4023; }
/* app.js 451 */ .c714 { const span div span display: 1445; }
/* app.js 452 */ .c202 { width div margin div div let path display: 2609; }
/* app.js 453 */ .c599 { width path height flex height margin: 1626; }
/* app.js 454 */ .c173 { const height const div display padding const let: 1464; }
/* app.js 455 */ .c548 { let margin grid function padding return margin: 2342; }
/* app.js 456 */ .c471 { display let return: 1108; }
/* app.js 457 */ .c307 { stroke path flex flex display margin margin height: 630; }
/* app.js 458 */ .c535 { stroke flex div function width: 2594; }
/* app.js 459 */ .c993 { display padding return: 3978; }
/* app.js 460 */ .c378 { const path width span margin height: 2056; }
/* app.js 461 */ .c747 { const function color height const let margin: 2299; }
/* app.js 462 */ .c152 { height flex path fill: 1962; }
/* app.js 463 */ .c400 { const stroke let grid stroke: 3817; }
/* app.js 464 */ .c750 { margin fill flex height display fill span: 216; }
/* app.js 465 */ .c866 { height grid return display let display: 190; }
/* app.js 466 */ .c689 { path span path width display grid div display: 2757; }
/* app.js 467 */ .c756 { grid function color height color return margin: 1068; }
/* app.js 468 */ .c332 { function fill return margin span span grid: 1864; }
/* app.js 469 */ .c484 { color stroke path: 1762; }
/* app.js 470 */ .c826 { fill let fill fill flex span: 2030; }
/* app.js 471 */ .c226 { flex padding width function width fill const: 1429; }
/* app.js 472 */ .c631 { color width height width: 1390; }
/* app.js 473 */ .c432 { path let flex: 3722; }
/* app.js 474 */ .c411 { function span return: 108; }
/* app.js 475 */ .c354 { width padding div fill: 2888; }
/* app.js 476 */ .c733 { color display span display padding padding grid let color: 1720; }
/* app.js 477 */ .c687 { grid path path div: 3552; }
/* app.js 478 */ .c150 { path span grid: 991; }
/* app.js 479 */ .c356 { div stroke height path: 1802; }
/* app.js 480 */ .c734 { grid color color function let return return: 3897; }
/* app.js 481 */ .c616 { color span grid function: 3818; }
/* app.js 482 */ .c829 { grid padding function let let: 1865; }
/* app.js 483 */ .c647 { div grid display: 2318; }
/* app.js 484 */ .c6 { let function width div div fill stroke: 301; }
/* app.js 485 */ .c660 { let padding path fill grid height let flex: 3454; }
/* app.js 486 */ .c461 { path flex width flex display fill: 2511; }
/* app.js 487 */ .c656 { return function margin function grid let stroke grid: 2352; }
/* app.js 488 */ .c121 { stroke color fill let function const color return: 3227; }
/* app.js 489 */ .c313 { width grid path: 2013; }
/* app.js 490 */ .c129 { grid color fill stroke span: 3930; }
/* app.js 491 */ .c145 { function fill stroke fill div: 3038; }
/* app.js 492 */ .c930 { margin height let flex div return path margin return: 2434; }
/* app.js 493 */ .c863 { grid div color path width color flex stroke: 1578; }
/* app.js 494 */ .c381 { width flex display display span width div stroke fill: 1492; }
/* app.js 495 */ .c891 { path width display width: 2762; }
/* app.js 496 */ .c946 { margin div fill display span span grid: 937; }
/* app.js 497 */ .c325 { height const path grid let: 1135; }
/* app.js 498 */ .c683 { display const span width flex padding padding: 3103; }
/* app.js 499 */ .c890 { function height width height: 1391; }
/* app.js 500 */ .c764 { grid flex stroke grid padding display: 3788; }
/* app.js 501 */ .c316 { const color display color: 2067; }
/* app.js 502 */ .c260 { stroke stroke width padding width let div grid width: 1902; }
/* app.js 503 */ .c402 { span padding path let let height: 2780; }
/* app.js 504 */ .c157 { return stroke const function span return: 1905; }
/* app.js 505 */ .c843 { color width grid let grid span height color: 2427; }
/* app.js 506 */ .c293 { height fill margin fill div div stroke let function: 2457; }
/* app.js 507 */ .c517 { display padding height flex width display div width: 1358; }
/* app.js 508 */ .c669 { grid stroke height grid display: 2157; }
/* app.js 509 */ .c882 { padding grid flex color: 2071; }
/* app.js 510 */ .c173 { grid padding padding: 1726; }
/* app.js 511 */ .c743 { return function path grid div return fill stroke: 445; }
/* app.js 512 */ .c126 { let const flex color div height: 782; }
/* app.js 513 */ .c383 { div span display grid color display: 221; }
/* app.js 514 */ .c139 { function display div fill: 1417; }
/* app.js 515 */ .c124 { width flex width return color path path const: 1101; }
/* app.js 516 */ .c133 { height margin const flex let: 1765; }
/* app.js 517 */ .c519 { height path stroke padding height path path path: 3790; }
/* app.js 518 */ .c674 { const function div function: 394; }
/* app.js 519 */ .c757 { path height padding height width: 882; }
/* app.js 520 */ .c3 { const grid margin color: 3530; }
/* app.js 521 */ .c553 { function function margin flex padding path color: 2078; }
/* app.js 522 */ .c364 { margin fill width color let function color width: 1998; }
/* app.js 523 */ .c811 { return div const stroke padding: 2189; }
/* app.js 524 */ .c771 { width const const fill color: 2654; }
/* app.js 525 */ .c589 { width margin stroke fill function const div color stroke: 2527; }
/* app.js 526 */ .c82 { fill const const padding: 1614; }
/* app.js 527 */ .c584 { color span fill return const margin stroke span height: 309; }
/* app.js 528 */ .c827 { height height grid flex return: 717; }
/* app.js 529 */ .c62 { color fill stroke flex div margin height let: 3450; }
/* app.js 530 */ .c789 { height function grid path color: 3040; }
/* app.js 531 */ .c413 { grid grid width width path: 1462; }
/* app.js 532 */ .c111 { function stroke path div grid span display grid margin: 1913; }
/* app.js 533 */ .c53 { let const margin margin path: 3586; }
/* app.js 534 */ .c550 { stroke grid let: 888; }
/* app.js 535 */ .c785 { color color display height flex flex grid height margin: 4079; }
/* app.js 536 */ .c508 { flex span grid margin height margin 