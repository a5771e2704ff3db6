/* keeps the support library non-empty when support/ has no other file */
typedef int tachy_test_support_empty;
