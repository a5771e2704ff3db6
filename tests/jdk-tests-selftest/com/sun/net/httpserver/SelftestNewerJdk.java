/*
 * @test
 * @summary Needs a JDK that does not exist yet: the runner must skip it and say why.
 * @requires jdk.version.major >= 99
 * @run main/othervm SelftestNewerJdk
 */

public class SelftestNewerJdk {
    public static void main(String[] args) {
        throw new AssertionError("ran on JDK " + Runtime.version().feature());
    }
}
