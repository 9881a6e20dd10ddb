package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/receipt"
	"github.com/spf13/cobra"
)

func receiptCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "receipt", Short: "Check decision receipts (docs/receipts.md)"}
	var argsFile, jwksFrom, issuer string
	verify := &cobra.Command{
		Use:   "verify TOKEN",
		Short: "Check a decision receipt: exit 0 and print what was decided, or 1 and why not",
		Long: "Check a decision receipt offline against the server's keys: the signature, the issuer, " +
			"the expiry and, with --args, that the arguments are those approved. TOKEN - reads it from stdin. " +
			"The keys and the issuer are the configured server's (HITL_URL or the credentials file) unless given.",
		Example: "  hitl receipt verify \"$RECEIPT\" --args args.json\n  jq -r .receipt inquiry.json | hitl receipt verify -",
		Args:    exactArgs(1, "the receipt (or - to read it from stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			token := args[0]
			if token == "-" {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 64<<10))
				if err != nil {
					return err
				}
				token = string(b)
			}
			var opts receipt.Options
			if argsFile != "" {
				b, err := os.ReadFile(argsFile)
				if err != nil {
					return err
				}
				if !json.Valid(b) {
					return fmt.Errorf("%s is not JSON: --args takes the tool call's arguments as a JSON file", argsFile)
				}
				opts.Args = b
			}
			jwks, iss, err := receiptKeys(cmd.Context(), jwksFrom)
			if err != nil {
				return err
			}
			opts.Issuer = cmp.Or(issuer, iss)
			c, err := receipt.Verify(token, jwks, opts)
			var re *receipt.Error
			if errors.As(err, &re) {
				return fmt.Errorf("the receipt does not verify (%s): %s", re.Reason, re.Message)
			}
			if err != nil {
				return err
			}
			return printClaims(cmd.OutOrStdout(), c)
		},
	}
	verify.Flags().StringVar(&argsFile, "args", "", "a JSON file of the tool call's arguments about to run: they must be those approved")
	verify.Flags().StringVar(&jwksFrom, "jwks", "", "the URL (or file) of the JWKS (default: the server's /.well-known/jwks.json)")
	verify.Flags().StringVar(&issuer, "issuer", "", "the issuer expected, the server's public URL (default: the server's URL)")
	cmd.AddCommand(verify)
	return cmd
}

// receiptKeys reads the JWKS from where (a URL or a file), or from the configured server;
// the issuer is the configured server's URL.
func receiptKeys(ctx context.Context, where string) (jwks []byte, issuer string, err error) {
	t, terr := findTarget()
	if terr == nil {
		issuer = t.URL
	}
	switch {
	case strings.HasPrefix(where, "http://") || strings.HasPrefix(where, "https://"):
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
		if err != nil {
			return nil, "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			// %v, not %w: the dial error must not be read as "the configured server is
			// unreachable", which names HITL_URL rather than the URL that failed.
			return nil, "", fmt.Errorf("cannot fetch the receipt keys from %s: %v", where, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("%s answered %s", where, resp.Status)
		}
		jwks, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return jwks, issuer, err
	case where != "":
		jwks, err = os.ReadFile(where)
		return jwks, issuer, err
	case terr != nil:
		return nil, "", terr
	}
	jwks, err = client.New(t.URL, "", nil).JWKS(ctx)
	return jwks, issuer, err
}

// printClaims says what a verified receipt records.
func printClaims(w io.Writer, c *receipt.Claims) error {
	var who []string
	for _, d := range c.DecidedBy {
		s := d.Name
		if d.OnBehalfOf != "" {
			s += " for " + d.OnBehalfOf
		}
		if d.RelayedBy != "" {
			s += " via " + d.RelayedBy
		}
		if d.Author != "" {
			s += " (written by " + d.Author + ")"
		}
		who = append(who, s)
	}
	decision := c.Decision
	if c.Fallback {
		decision += " (the deadline's fallback value)"
	}
	fmt.Fprintf(w, "valid: inquiry %s, %s by %s\n", c.Subject, decision, strings.Join(who, ", "))
	if c.Tool != "" {
		fmt.Fprintf(w, "tool: %s (arguments sha256 %s)\n", c.Tool, c.ArgsSHA256)
	}
	_, err := fmt.Fprintf(w, "expires: %s\nissuer: %s\nid: %s\n", c.Expiry().Format(time.RFC3339), c.Issuer, c.ID)
	return err
}
