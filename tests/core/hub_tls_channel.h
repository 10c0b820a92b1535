// TLS for the loopback hub (hub_test_server.h), with OpenSSL: a server context holding a
// certificate chain and its key (PEM files the test makes with the openssl command, see
// tst_model_hub_transport.cpp), and the channel factory that performs the handshake on each
// accepted connection. A client that refuses the certificate ends the handshake: the connection
// is dropped, as a real server's would be.
#pragma once

#include "hub_test_server.h"

#include <openssl/ssl.h>

#include <memory>
#include <string>

class TlsServerContext {
public:
    TlsServerContext(const std::string& certificateChainPem, const std::string& keyPem)
        : m_ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free) {
        m_ok = m_ctx && SSL_CTX_use_certificate_chain_file(m_ctx.get(), certificateChainPem.c_str()) == 1 &&
               SSL_CTX_use_PrivateKey_file(m_ctx.get(), keyPem.c_str(), SSL_FILETYPE_PEM) == 1 &&
               SSL_CTX_check_private_key(m_ctx.get()) == 1;
    }
    bool ok() const { return m_ok; }

    HubTestServer::ChannelFactory factory() const {
        std::shared_ptr<SSL_CTX> ctx = m_ctx;
        return [ctx](int fd) -> std::unique_ptr<HubTestServer::Channel> {
            SSL* ssl = SSL_new(ctx.get());
            if (!ssl) return nullptr;
            SSL_set_fd(ssl, fd);
            if (SSL_accept(ssl) != 1) {
                SSL_free(ssl);
                return nullptr;
            }
            return std::make_unique<Channel>(ssl);
        };
    }

private:
    struct Channel : HubTestServer::Channel {
        explicit Channel(SSL* ssl) : ssl(ssl) {}
        ~Channel() override {
            SSL_shutdown(ssl);
            SSL_free(ssl);
        }
        ssize_t read(char* data, size_t bytes) override { return SSL_read(ssl, data, int(bytes)); }
        ssize_t write(const char* data, size_t bytes) override { return SSL_write(ssl, data, int(bytes)); }
        SSL* ssl;
    };

    std::shared_ptr<SSL_CTX> m_ctx;
    bool m_ok = false;
};
