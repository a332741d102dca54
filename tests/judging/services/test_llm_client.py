"""SDK clients of one process share a TLS context: building one per lane reloads the
certificate store each time, holding the lanes' first calls back."""

import ssl
import threading

from judging.llm_client import client_new


def _tls_context(client) -> ssl.SSLContext:
    # The SDK's HTTP client keeps its connection pool's context here (openai 3.x, httpx2).
    return client._client._transport._pool._ssl_context


def test_clients_made_in_many_threads_share_one_verifying_tls_context():
    clients = []
    lock = threading.Lock()

    def make() -> None:
        client = client_new(base_url="https://judge.example.org/v1", api_key_env="", timeout=5)
        with lock:
            clients.append(client)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    contexts = {id(_tls_context(client)) for client in clients}
    assert len(clients) == 8 and len(contexts) == 1
    context = _tls_context(clients[0])
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    for client in clients:
        client.close()
