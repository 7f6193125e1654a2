package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// writeCert makes a self-signed certificate for Host (ECDSA P-256, valid
// for a day) and writes it and its key into the data directory as
// server.crt and server.key, owned by the server's user, the key 0600 as
// PostgreSQL demands. It returns the certificate.
func (c *Cluster) writeCert() (*x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pgtest: TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, fmt.Errorf("pgtest: TLS serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: Host},
		IPAddresses:           []net.IP{net.ParseIP(Host)},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // its own root: a client may verify it with verify-full
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("pgtest: TLS certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("pgtest: TLS key: %w", err)
	}
	for name, block := range map[string]*pem.Block{
		"server.crt": {Type: "CERTIFICATE", Bytes: der},
		"server.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		path := filepath.Join(c.dataDir(), name)
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		if err := c.owner.chown(path); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	return x509.ParseCertificate(der)
}

// CertPool returns a pool holding the cluster's certificate, for a client
// that verifies it (sslmode=verify-full with RootCAs); nil when the
// cluster was started without TLS.
func (c *Cluster) CertPool() *x509.CertPool {
	if c.cert == nil {
		return nil
	}
	p := x509.NewCertPool()
	p.AddCert(c.cert)
	return p
}
