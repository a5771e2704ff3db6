/*
 * @test
 * @summary Passes only on the JDK's built-in provider: proves that the runner's list of
 *          tests whose results differ between the two providers is filled.
 * @run main/othervm SelftestBuiltinProvider
 */

import com.sun.net.httpserver.spi.HttpServerProvider;

public class SelftestBuiltinProvider {
    public static void main(String[] args) {
        String name = HttpServerProvider.provider().getClass().getName();
        System.out.println("provider: " + name);
        if (!name.equals("sun.net.httpserver.DefaultHttpServerProvider"))
            throw new AssertionError("not the built-in provider: " + name);
    }
}
