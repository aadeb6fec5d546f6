// Test helper (not published): a self-signed certificate for 127.0.0.1
// and localhost (valid 2020-2120, its own CA), so that tests can serve
// FakeApiServer.listen() over HTTPS; kubectl sends tokens only over TLS.
// A test key: it protects nothing.

/** The certificate, PEM. */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBojCCAUigAwIBAgIBATAKBggqhkjOPQQDAjAfMR0wGwYDVQQDDBRmYWtlLWFw
aS1zZXJ2ZXIgdGVzdDAgFw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFow
HzEdMBsGA1UEAwwUZmFrZS1hcGktc2VydmVyIHRlc3QwWTATBgcqhkjOPQIBBggq
hkjOPQMBBwNCAARb15T6cQps7yU41yBgyRqMyCElxTBqoyC/MvpI8q9TD7vvE8K9
zDGnVJQW9I6QNBdexSywMQsLukE88LUhw1gpo3MwcTAaBgNVHREEEzARhwR/AAAB
gglsb2NhbGhvc3QwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAoQwEwYD
VR0lBAwwCgYIKwYBBQUHAwEwHQYDVR0OBBYEFD2cy0AM2pkeyz5UcIm5PjNpBMHt
MAoGCCqGSM49BAMCA0gAMEUCIADDXjYkHwYA7pyx9nfRm4d7/9MQSv7bl63ugERZ
mhpZAiEAhi5kUGXeeOj3HE5bTHfhTLlV4ZzLIv78xnHyPCGBZaI=
-----END CERTIFICATE-----
`;

/** Its private key (P-256), PEM. */
export const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgO8+t9TbSlk6WA7K5
OzLn6o0AOtuThsrAVify7ZHCtFOhRANCAARb15T6cQps7yU41yBgyRqMyCElxTBq
oyC/MvpI8q9TD7vvE8K9zDGnVJQW9I6QNBdexSywMQsLukE88LUhw1gp
-----END PRIVATE KEY-----
`;
