package rpc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// call decodes the reply into a fresh value and copies it to reply only on
// success: a reply that arrives after ctx ended must not write to memory
// the caller owns again. Too many abandoned calls recycle the connection.
func (r *Client) call(ctx context.Context, s *session, method string, args, reply any) (sent bool, err error) {
	fresh := reflect.New(reflect.TypeOf(reply).Elem())
	sent, err = s.call(ctx, method, args, fresh.Interface())
	if err == nil {
		reflect.ValueOf(reply).Elem().Set(fresh.Elem())
		return sent, nil
	}
	if ctx.Err() != nil {
		if n := s.pending(); n > r.c.o.MaxAbandoned {
			r.sup.Invalidate(s.client, fmt.Errorf("%d calls abandoned without a reply (MaxAbandoned %d)", n, r.c.o.MaxAbandoned))
		}
	}
	return sent, err
}

// checkCall rejects what rpc2's gob codec would panic on or could not
// decode into: nil arguments and a reply that is not a non-nil pointer.
func checkCall(args, reply any) error {
	if args == nil {
		return errors.New("nil args")
	}
	if v := reflect.ValueOf(args); v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("nil args pointer %T", args)
	}
	if v := reflect.ValueOf(reply); reply == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("reply must be a non-nil pointer, got %T", reply)
	}
	return nil
}
